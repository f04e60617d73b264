# SPDX-License-Identifier: Apache-2.0
# Installs the build into a fresh prefix and runs a QML file against the installed module,
# found only through QML_IMPORT_PATH, as a QML author would.
file(REMOVE_RECURSE "${WORK_DIR}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${WORK_DIR}/prefix"
    RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install failed: ${rc}")
endif()
set(qmldir "${WORK_DIR}/prefix/${QML_SUBDIR}/QSimba/qmldir")
if(NOT EXISTS "${qmldir}")
    message(FATAL_ERROR "no installed module at ${qmldir}")
endif()
set(ENV{QML_IMPORT_PATH} "${WORK_DIR}/prefix/${QML_SUBDIR}")
set(ENV{SIMBA_BACKEND} "memory://installed")
set(ENV{QT_QPA_PLATFORM} "offscreen")
execute_process(COMMAND "${RUNNER}" -input "${TEST_FILE}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "qmltestrunner failed: ${rc}")
endif()
