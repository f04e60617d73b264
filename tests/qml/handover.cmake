# SPDX-License-Identifier: Apache-2.0
# Two instances of the QML example on one SQLite file, started together. The stepper steps
# down once it leads (as its button would) and quits when revoked; the taker quits after a
# screenshot once it leads. Whichever leads first, the other must lead after it, with a
# higher token: leadership passed between the two processes.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(ENV{SIMBA_BACKEND} "sqlite://${WORK_DIR}/handover.db")
set(ENV{SIMBA_LEASE_DURATION} "3s")
# execute_process runs its COMMANDs at the same time (as a pipeline: the stepper writes to
# its own file, so the taker reads nothing from it).
execute_process(
    COMMAND sh -c "exec \"$0\" --label stepper --step-down --timeout 60 > \"$1\"" "${EXE}" "${WORK_DIR}/stepper.txt"
    COMMAND "${EXE}" --label taker --timeout 60 --screenshot "${WORK_DIR}/taker.png"
    OUTPUT_FILE "${WORK_DIR}/taker.txt"
    ERROR_FILE "${WORK_DIR}/stderr.txt"
    RESULTS_VARIABLE results
    TIMEOUT 100)
file(READ "${WORK_DIR}/stepper.txt" stepper)
file(READ "${WORK_DIR}/taker.txt" taker)
message(STATUS "exit codes: ${results}\nstepper:\n${stepper}taker:\n${taker}")
if(NOT results STREQUAL "0;0")
    file(READ "${WORK_DIR}/stderr.txt" err)
    message(FATAL_ERROR "an instance failed (exit codes ${results}):\n${err}")
endif()
if(NOT stepper MATCHES "leader with token ([0-9]+)")
    message(FATAL_ERROR "the stepper never led")
endif()
set(stepperToken ${CMAKE_MATCH_1})
if(NOT stepper MATCHES "revoked: (STEPPED_DOWN|STOPPED)")
    message(FATAL_ERROR "the stepper's term did not end by its step-down")
endif()
if(NOT taker MATCHES "leader with token ([0-9]+)")
    message(FATAL_ERROR "the taker never led")
endif()
set(takerToken ${CMAKE_MATCH_1})
if(stepperToken EQUAL takerToken)
    message(FATAL_ERROR "both led with token ${takerToken}: one term held twice")
endif()
if(NOT taker MATCHES "screenshot .* saved")
    message(FATAL_ERROR "no screenshot of the taker as leader")
endif()
