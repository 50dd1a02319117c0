# Every target of the tree is one of two kinds in a sanitizer build
# (docs/hardening.md, "What is instrumented"): instrumented, by
# keel_sanitize, or deliberately not, by keel_no_sanitize. Both record the
# target in a global property whether KEEL_SANITIZE is set or not, so that
# the normal build can check the sanitizer build's link
# (keel_write_target_list below, test/build/sanitize-targets.test).

# keel_sanitize(target): apply KEEL_SANITIZE (and, for libraries under
# KEEL_FUZZ, coverage instrumentation) to one of Keel's own targets, at
# compile time and, for what is linked (executables, shared libraries), at
# link time, which brings in the sanitizer runtimes.
function(keel_sanitize name)
  set_property(GLOBAL APPEND PROPERTY KEEL_SANITIZED_TARGETS ${name})
  if(KEEL_SANITIZE_FLAGS)
    target_compile_options(${name} PRIVATE ${KEEL_SANITIZE_FLAGS})
    get_target_property(type ${name} TYPE)
    if(type STREQUAL "STATIC_LIBRARY")
      if(KEEL_FUZZ)
        target_compile_options(${name} PRIVATE -fsanitize=fuzzer-no-link)
      endif()
    else()
      target_link_options(${name} PRIVATE -fsanitize=${KEEL_SANITIZE})
    endif()
  endif()
endfunction()

# keel_no_sanitize(targets...): never instrumented, whatever KEEL_SANITIZE
# says: code loaded into a host that is not built with the sanitizers (pass
# plugins and what they link, LD_PRELOAD shims, runtimes of instrumented test
# programs, the Valgrind tool). Each one is named, with its reason, in
# docs/hardening.md; nothing instrumented may be linked into it.
function(keel_no_sanitize)
  set_property(GLOBAL APPEND PROPERTY KEEL_UNSANITIZED_TARGETS ${ARGN})
endfunction()

# keel_add_library(name [NO_SANITIZE] SOURCES...): a static library of Keel
# code that links the shared libLLVM. Headers live in <dir>/include.
# NO_SANITIZE: never instrumented (linked into a plugin that an uninstrumented
# host loads).
function(keel_add_library name)
  cmake_parse_arguments(L "NO_SANITIZE" "" "" ${ARGN})
  add_library(${name} STATIC ${L_UNPARSED_ARGUMENTS})
  if(L_NO_SANITIZE)
    keel_no_sanitize(${name})
  else()
    keel_sanitize(${name})
  endif()
  target_include_directories(${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC LLVM fmt::fmt)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_compile_options(${name} PRIVATE -Wall -Wextra -Wno-unused-parameter -Wno-deprecated-declarations)
endfunction()

# keel_add_tool(name SOURCES... LIBS libs...): a command-line tool in bin/.
function(keel_add_tool name)
  cmake_parse_arguments(T "" "" "LIBS" ${ARGN})
  add_executable(${name} ${T_UNPARSED_ARGUMENTS})
  keel_sanitize(${name})
  target_link_libraries(${name} PRIVATE ${T_LIBS} keelSupport LLVM fmt::fmt)
  target_compile_options(${name} PRIVATE -Wall -Wextra -Wno-unused-parameter -Wno-deprecated-declarations)
  set_property(GLOBAL APPEND PROPERTY KEEL_TOOLS ${name})
  install(TARGETS ${name} RUNTIME DESTINATION ${KEEL_INSTALL_BINDIR})
endfunction()

# keel_install_lib(targets...): install pass plugins and runtimes into
# ${KEEL_INSTALL_LIBDIR} (lib/keel), where the tools look for them relative
# to their own executable (keel::findKeelLibFile) and KeelConfig.cmake
# points KEEL_LAYOUTOPT_PLUGIN & co. The pass plugins are declared with
# add_llvm_pass_plugin(... BUILDTREE_ONLY) so LLVM's helper does not also
# install them into lib/.
function(keel_install_lib)
  install(TARGETS ${ARGN} LIBRARY DESTINATION ${KEEL_INSTALL_LIBDIR})
  set_property(GLOBAL APPEND PROPERTY KEEL_INSTALLED_LIBS ${ARGN})
endfunction()

# keel_add_unittest(name SOURCES... LIBS libs...): a GoogleTest binary that
# ctest and the check target run.
function(keel_add_unittest name)
  cmake_parse_arguments(T "" "" "LIBS" ${ARGN})
  add_executable(${name} ${T_UNPARSED_ARGUMENTS})
  keel_sanitize(${name})
  target_link_libraries(${name} PRIVATE ${T_LIBS} LLVM fmt::fmt GTest::gtest GTest::gtest_main)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/unittests)
  target_compile_definitions(${name} PRIVATE KEEL_TEST_INPUTS="${CMAKE_SOURCE_DIR}/test/Inputs")
  gtest_discover_tests(${name} DISCOVERY_MODE PRE_TEST)
  set_property(GLOBAL APPEND PROPERTY KEEL_UNITTESTS ${name})
endfunction()

# keel_add_subdirectories(): add every child directory of the current source
# directory that has a CMakeLists.txt, in name order, so that adding a tool,
# a library or a plugin touches no other CMake file.
function(keel_add_subdirectories)
  file(GLOB children CONFIGURE_DEPENDS LIST_DIRECTORIES true RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} *)
  list(SORT children)
  foreach(child ${children})
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${child}/CMakeLists.txt)
      add_subdirectory(${child})
    endif()
  endforeach()
endfunction()

# keel_collect_targets(dir out): the targets defined in dir and below it.
function(keel_collect_targets dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    keel_collect_targets(${sub} more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# keel_json_list(out values...): values as a JSON array of strings.
function(keel_json_list out)
  set(items "")
  foreach(v ${ARGN})
    string(REPLACE "\\" "\\\\" v "${v}")
    string(REPLACE "\"" "\\\"" v "${v}")
    list(APPEND items "\"${v}\"")
  endforeach()
  string(JOIN ", " joined ${items})
  set(${out} "[${joined}]" PARENT_SCOPE)
endfunction()

# keel_write_target_list(file): after every add_subdirectory, write each
# target the tree defines with its type, its sanitizer kind (instrumented,
# not, or unclassified) and what it links, one JSON object a line, for
# test/build/sanitize-targets.test. Written at configure time, so the check
# reads the build as configured and needs no compile.
function(keel_write_target_list file)
  keel_collect_targets(${CMAKE_SOURCE_DIR} targets)
  list(SORT targets)
  get_property(yes GLOBAL PROPERTY KEEL_SANITIZED_TARGETS)
  get_property(no GLOBAL PROPERTY KEEL_UNSANITIZED_TARGETS)
  set(text "")
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    if(type STREQUAL "INTERFACE_LIBRARY")
      continue()
    endif()
    set(kind unclassified)
    if(t IN_LIST yes AND t IN_LIST no)
      set(kind both)
    elseif(t IN_LIST yes)
      set(kind instrumented)
    elseif(t IN_LIST no)
      set(kind uninstrumented)
    endif()
    get_target_property(dir ${t} SOURCE_DIR)
    file(RELATIVE_PATH dir ${CMAKE_SOURCE_DIR} ${dir})
    set(links "")
    set(ilinks "")
    set(copts "")
    set(lopts "")
    if(NOT type STREQUAL "UTILITY")
      get_target_property(links ${t} LINK_LIBRARIES)
      get_target_property(ilinks ${t} INTERFACE_LINK_LIBRARIES)
      get_target_property(copts ${t} COMPILE_OPTIONS)
      get_target_property(lopts ${t} LINK_OPTIONS)
    endif()
    foreach(v links ilinks copts lopts)
      if("${${v}}" MATCHES "-NOTFOUND$")
        set(${v} "")
      endif()
      keel_json_list(${v} ${${v}})
    endforeach()
    string(APPEND text "{\"name\": \"${t}\", \"type\": \"${type}\", \"dir\": \"${dir}\", "
      "\"sanitize\": \"${kind}\", \"links\": ${links}, \"interface_links\": ${ilinks}, "
      "\"compile_options\": ${copts}, \"link_options\": ${lopts}}\n")
  endforeach()
  set(header "{\"keel_sanitize\": \"${KEEL_SANITIZE}\", \"keel_fuzz\": \"${KEEL_FUZZ}\"}\n")
  file(WRITE ${file} "${header}${text}")
endfunction()
