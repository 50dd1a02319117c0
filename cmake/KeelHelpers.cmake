# keel_sanitize(target): apply KEEL_SANITIZE (and, for libraries under
# KEEL_FUZZ, coverage instrumentation) to one of Keel's own targets.
function(keel_sanitize name)
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

# keel_add_library(name [NO_SANITIZE] SOURCES...): a static library of Keel
# code that links the shared libLLVM. Headers live in <dir>/include.
# NO_SANITIZE: never instrumented (linked into a plugin that an uninstrumented
# host loads).
function(keel_add_library name)
  cmake_parse_arguments(L "NO_SANITIZE" "" "" ${ARGN})
  add_library(${name} STATIC ${L_UNPARSED_ARGUMENTS})
  if(NOT L_NO_SANITIZE)
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
