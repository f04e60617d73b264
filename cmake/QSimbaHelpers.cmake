# SPDX-License-Identifier: Apache-2.0
# qsimba_add_library(<Component> TARGET <target> [HEADERS …] [SOURCES …] [PUBLIC_LIBS …] [PRIVATE_LIBS …])
# Declares one exported component: QSimba::<Component>, its export header, its installed
# public headers and its own export set (QSimba<Component>Targets.cmake).
function(qsimba_add_library component)
    cmake_parse_arguments(arg "" "TARGET" "HEADERS;SOURCES;PUBLIC_LIBS;PRIVATE_LIBS" ${ARGN})
    set(target ${arg_TARGET})
    add_library(${target} ${arg_SOURCES} ${arg_HEADERS})
    add_library(QSimba::${component} ALIAS ${target})
    set_target_properties(${target} PROPERTIES
        EXPORT_NAME ${component}
        OUTPUT_NAME QSimba${component}
        VERSION ${PROJECT_VERSION}
        SOVERSION ${PROJECT_VERSION_MAJOR})
    string(TOLOWER ${target} lower)
    generate_export_header(${target} BASE_NAME ${target}
        EXPORT_FILE_NAME "${CMAKE_CURRENT_BINARY_DIR}/${lower}_export.h")
    target_include_directories(${target} PUBLIC
        "$<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>"
        "$<BUILD_INTERFACE:${CMAKE_CURRENT_BINARY_DIR}>"
        "$<INSTALL_INTERFACE:${QSIMBA_INSTALL_INCLUDEDIR}>"
        "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
    target_link_libraries(${target} PUBLIC ${arg_PUBLIC_LIBS} PRIVATE ${arg_PRIVATE_LIBS})
    install(TARGETS ${target} EXPORT QSimba${component}Targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    install(FILES ${arg_HEADERS} "${CMAKE_CURRENT_BINARY_DIR}/${lower}_export.h"
        DESTINATION "${QSIMBA_INSTALL_INCLUDEDIR}")
    install(EXPORT QSimba${component}Targets NAMESPACE QSimba::
        DESTINATION "${QSIMBA_INSTALL_CMAKEDIR}")
endfunction()
