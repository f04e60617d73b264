# SPDX-License-Identifier: Apache-2.0
# qsimba_add_library(<Component> TARGET <target> [INTERNAL_TESTS] [HEADERS …] [SOURCES …]
#                    [PUBLIC_LIBS …] [PRIVATE_LIBS …])
# Declares one exported component: QSimba::<Component> (shared unless BUILD_SHARED_LIBS is
# OFF), its export header, its installed public headers with their CamelCase forwarding
# headers (<QSimba/QSimbaLock>), and its own export set (QSimba<Component>Targets.cmake).
# INTERNAL_TESTS also makes <target>Internal, a static archive of the very same object files
# for the tests that drive private classes (the engine core) which a shared library hides.
function(qsimba_add_library component)
    cmake_parse_arguments(arg "INTERNAL_TESTS" "TARGET" "HEADERS;SOURCES;PUBLIC_LIBS;PRIVATE_LIBS" ${ARGN})
    set(target ${arg_TARGET})
    string(TOLOWER ${target} lower)
    set(targets ${target})
    if(arg_INTERNAL_TESTS)
        # Compiled once, as for the shared library (its export macro defined), linked twice.
        add_library(${target}Objects OBJECT ${arg_SOURCES} ${arg_HEADERS})
        target_compile_definitions(${target}Objects PRIVATE ${target}_EXPORTS)
        add_library(${target} $<TARGET_OBJECTS:${target}Objects>)
        list(APPEND targets ${target}Objects)
        if(QSIMBA_BUILD_TESTS)
            add_library(${target}Internal STATIC EXCLUDE_FROM_ALL $<TARGET_OBJECTS:${target}Objects>)
            list(APPEND targets ${target}Internal)
        endif()
    else()
        add_library(${target} ${arg_SOURCES} ${arg_HEADERS})
    endif()
    add_library(QSimba::${component} ALIAS ${target})
    if(arg_INTERNAL_TESTS)
        qsimba_precompile(${target}Objects)
    else()
        qsimba_precompile(${target})
    endif()
    set_target_properties(${target} PROPERTIES
        EXPORT_NAME ${component}
        OUTPUT_NAME QSimba${component}
        VERSION ${PROJECT_VERSION}
        SOVERSION ${PROJECT_VERSION_MAJOR})
    generate_export_header(${target} BASE_NAME ${target}
        EXPORT_FILE_NAME "${CMAKE_CURRENT_BINARY_DIR}/${lower}_export.h")
    qsimba_forwarding_headers(forwarders ${arg_HEADERS})
    foreach(t IN LISTS targets)
        target_include_directories(${t} PUBLIC
            "$<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>"
            "$<BUILD_INTERFACE:${CMAKE_CURRENT_BINARY_DIR}>"
            "$<BUILD_INTERFACE:${QSIMBA_FORWARDING_DIR}>"
            "$<INSTALL_INTERFACE:${QSIMBA_INSTALL_INCLUDEDIR}>"
            "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
    endforeach()
    target_link_libraries(${target} PUBLIC ${arg_PUBLIC_LIBS} PRIVATE ${arg_PRIVATE_LIBS})
    if(arg_INTERNAL_TESTS)
        target_link_libraries(${target}Objects PUBLIC ${arg_PUBLIC_LIBS} PRIVATE ${arg_PRIVATE_LIBS})
        if(QSIMBA_BUILD_TESTS)
            target_link_libraries(${target}Internal PUBLIC ${arg_PUBLIC_LIBS} ${arg_PRIVATE_LIBS})
        endif()
    endif()
    install(TARGETS ${target} EXPORT QSimba${component}Targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    install(FILES ${arg_HEADERS} ${forwarders} "${CMAKE_CURRENT_BINARY_DIR}/${lower}_export.h"
        DESTINATION "${QSIMBA_INSTALL_INCLUDEDIR}")
    install(EXPORT QSimba${component}Targets NAMESPACE QSimba::
        DESTINATION "${QSIMBA_INSTALL_CMAKEDIR}")
endfunction()

# qsimba_forwarding_headers(<out-var> <header>…)
# Writes, as Qt does for its classes, one header per public class or namespace named after it
# (QSimbaLock → #include "qsimbalock.h") into ${QSIMBA_FORWARDING_DIR}/QSimba and returns
# their paths for installation beside the real headers.
function(qsimba_forwarding_headers out)
    set(files)
    foreach(header IN LISTS ARGN)
        get_filename_component(abs "${header}" ABSOLUTE)
        get_filename_component(name "${header}" NAME)
        file(STRINGS "${abs}" lines REGEX "^(class|namespace|QSIMBA_DECLARE_ERROR)[ (]")
        foreach(line IN LISTS lines)
            if(line MATCHES ";[ \t]*$") # a forward declaration
                continue()
            endif()
            set(class "")
            if(line MATCHES "^(class|namespace)( +QSIMBA[A-Z]*_EXPORT)? +(QSimba[A-Za-z0-9]*)")
                set(class ${CMAKE_MATCH_3})
            elseif(line MATCHES "^QSIMBA_DECLARE_ERROR\\((QSimba[A-Za-z0-9]*)")
                set(class ${CMAKE_MATCH_1})
            endif()
            if(class)
                set(file "${QSIMBA_FORWARDING_DIR}/QSimba/${class}")
                set(content "#include \"${name}\"\n")
                set(old "")
                if(EXISTS "${file}")
                    file(READ "${file}" old)
                endif()
                if(NOT old STREQUAL content)
                    file(WRITE "${file}" "${content}")
                endif()
                list(APPEND files "${file}")
            endif()
        endforeach()
    endforeach()
    list(REMOVE_DUPLICATES files)
    set(${out} ${files} PARENT_SCOPE)
endfunction()

# qsimba_precompile(<target> [header…])
# Parsing Qt's headers is about a third of compiling a QSimba source at -O2 (more at -O0): a
# target with several sources parses them once, into a precompiled header of the Qt and
# standard headers they share (plus the given ones). Off with -DQSIMBA_PCH=OFF, which also
# shows a source that forgot one of these includes.
option(QSIMBA_PCH "Precompile the Qt headers each library and program shares" ON)
# -DQSIMBA_UNITY_BUILD=ON (the test command's builds) compiles instead the sources of each
# folder of a library or program as one unity source (qsimba_unity_build): the shared headers
# are parsed, and the inline Qt code they instantiate compiled, once per folder rather than
# once per source, so a precompiled header no longer pays for itself.
option(QSIMBA_UNITY_BUILD "Compile the sources of each folder of a library or program as one" OFF)
function(qsimba_precompile target)
    get_target_property(sources ${target} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.cpp$")
    list(LENGTH sources count)
    if(QSIMBA_UNITY_BUILD AND count GREATER 1)
        qsimba_unity_build(${target})
        return()
    endif()
    if(NOT QSIMBA_PCH)
        return()
    endif()
    if(count LESS 4) # a precompiled header costs about as much as compiling 3 sources
        return()
    endif()
    target_precompile_headers(${target} PRIVATE
        <chrono> <functional> <memory> <optional>
        <QtCore/QDebug> <QtCore/QFuture> <QtCore/QHash> <QtCore/QList> <QtCore/QMutex>
        <QtCore/QObject> <QtCore/QString> <QtCore/QThread> <QtCore/QTimer> ${ARGN})
endfunction()

# qsimba_unity_build(<target>)
# CMake's unity build, one unity source per folder of the target's sources: a folder holds the
# sources of one layer (engine/, values/, …), which share their headers and were written
# together, so a file-scope name of one (a using-directive, a helper in an anonymous
# namespace) meets only its neighbours. Off unless QSIMBA_UNITY_BUILD (a unity build hides a
# source's missing include): the test command turns it on, plain builds keep one object per
# source. A source that defines a file-scope name one of its neighbours defines too is compiled
# apart: it is named in QSIMBA_UNITY_APART, with the name.
set(QSIMBA_UNITY_APART
    qsimbasnapshot.cpp # static toMs(), as in qsimbaconfig.cpp
)
function(qsimba_unity_build target)
    if(NOT QSIMBA_UNITY_BUILD)
        return()
    endif()
    get_target_property(sources ${target} SOURCES)
    get_target_property(top ${target} SOURCE_DIR)
    list(FILTER sources INCLUDE REGEX "\\.cpp$")
    foreach(source IN LISTS sources)
        get_filename_component(path "${source}" ABSOLUTE BASE_DIR "${top}")
        file(RELATIVE_PATH relative "${top}" "${path}")
        if(relative MATCHES "^\\.\\./") # generated (moc, rcc, QML type registration): apart
            continue()
        endif()
        get_filename_component(name "${relative}" NAME)
        if(name IN_LIST QSIMBA_UNITY_APART)
            set_source_files_properties(${path} TARGET_DIRECTORY ${target} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
            continue()
        endif()
        get_filename_component(folder "${relative}" DIRECTORY)
        string(MAKE_C_IDENTIFIER "${folder}" group)
        set_source_files_properties(${path} TARGET_DIRECTORY ${target} PROPERTIES UNITY_GROUP "_${group}")
    endforeach()
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
endfunction()
