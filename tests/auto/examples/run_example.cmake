# SPDX-License-Identifier: Apache-2.0
# cmake -DEXE=… -DARGS=a@@b -DEXPECT=regex@@regex -P run_example.cmake
# Runs an example; fails unless it exits 0 and its output matches every regex.
string(REPLACE "@@" ";" args "${ARGS}")
string(REPLACE "@@" ";" expect "${EXPECT}")
execute_process(COMMAND "${EXE}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 90)
message("${out}${err}")
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${EXE} exited with ${rc}")
endif()
foreach(re IN LISTS expect)
    if(NOT out MATCHES "${re}")
        message(FATAL_ERROR "${EXE}: no output line matches \"${re}\"")
    endif()
endforeach()
