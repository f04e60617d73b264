# SPDX-License-Identifier: Apache-2.0
# cmake -DBUILD_DIR=… -DEXAMPLE_DIR=… -DWORK_DIR=… -DRUN_EXAMPLE=… -P standalone_example.cmake
# Installs the build into a private prefix, builds an example there as an outside project
# (find_package(QSimba COMPONENTS … Coro)) and runs it.
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")
foreach(cmd IN ITEMS install configure build)
    if(cmd STREQUAL "install")
        set(args --install "${BUILD_DIR}" --prefix "${prefix}")
    elseif(cmd STREQUAL "configure")
        set(args -S "${EXAMPLE_DIR}" -B "${WORK_DIR}/build" -G Ninja "-DCMAKE_PREFIX_PATH=${prefix}")
    else()
        set(args --build "${WORK_DIR}/build")
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${cmd} failed (${rc}):\n${out}\n${err}")
    endif()
endforeach()
get_filename_component(name "${EXAMPLE_DIR}" NAME)
set(EXE "${WORK_DIR}/build/${name}")
set(ARGS "--sections@@2")
set(EXPECT " 0 overlapping, 0 with a stale token")
include("${RUN_EXAMPLE}")
