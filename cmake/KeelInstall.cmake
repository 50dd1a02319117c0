# What `cmake --install` and `cpack -G DEB` ship (docs/install.md). Included
# at the end of the top-level CMakeLists.txt, once every tool is defined;
# tools, plugins and runtimes install themselves (keel_add_tool,
# keel_install_lib).
include(CMakePackageConfigHelpers)

# Linker-script templates and the documentation.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/linker-scripts/templates/
        DESTINATION ${KEEL_INSTALL_DATADIR}/linker-scripts FILES_MATCHING PATTERN "*.ld")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${KEEL_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md" PATTERN "*.svg")
# Beside them the README, the Debian copyright file, and the examples
# docs/getting-started.md copies ($KEEL_EXAMPLES: the interpreter, the
# find_package(Keel) project), so the guide needs no source tree.
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/cmake/package/copyright
        DESTINATION ${KEEL_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/interp
        DESTINATION ${KEEL_INSTALL_DOCDIR}/examples USE_SOURCE_PERMISSIONS)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/test/install/Inputs/app/
        DESTINATION ${KEEL_INSTALL_DOCDIR}/examples/app)

# find_package(Keel): KeelConfig.cmake, its version file, keel_layout().
get_property(KEEL_TOOL_LIST GLOBAL PROPERTY KEEL_TOOLS)
list(SORT KEEL_TOOL_LIST)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/package/KeelConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/KeelConfig.cmake
  INSTALL_DESTINATION ${KEEL_INSTALL_CMAKEDIR}
  PATH_VARS KEEL_INSTALL_BINDIR KEEL_INSTALL_LIBDIR KEEL_INSTALL_DATADIR)
# 0.x: a minor release may change the plan format or keel_layout().
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/KeelConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/KeelConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/KeelConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/package/KeelLayout.cmake
        DESTINATION ${KEEL_INSTALL_CMAKEDIR})

# Man pages, made at build time from each tool's own --help and --version
# (scripts/keel-manpage.py), so they cannot drift from the options.
find_program(KEEL_PYTHON python3 REQUIRED)
set(KEEL_MAN_DIR ${PROJECT_BINARY_DIR}/share/man/man1)
set(KEEL_MAN_PAGES "")
foreach(tool ${KEEL_TOOL_LIST})
  add_custom_command(OUTPUT ${KEEL_MAN_DIR}/${tool}.1
    COMMAND ${CMAKE_COMMAND} -E make_directory ${KEEL_MAN_DIR}
    COMMAND ${KEEL_PYTHON} ${PROJECT_SOURCE_DIR}/scripts/keel-manpage.py
            $<TARGET_FILE:${tool}> -o ${KEEL_MAN_DIR}/${tool}.1
    DEPENDS ${tool} ${PROJECT_SOURCE_DIR}/scripts/keel-manpage.py
    COMMENT "Man page for ${tool}" VERBATIM)
  list(APPEND KEEL_MAN_PAGES ${KEEL_MAN_DIR}/${tool}.1)
endforeach()
add_custom_target(keel-man ALL DEPENDS ${KEEL_MAN_PAGES})
install(FILES ${KEEL_MAN_PAGES} DESTINATION ${KEEL_INSTALL_MANDIR})

# `cpack -G DEB` (scripts/keel-deb-check.sh): keel_<version>_amd64.deb for
# Debian bookworm with LLVM 22 from the same apt sources as the build
# (libllvm22, clang-22, lld-22), installed under /usr. The runtime dependencies are listed by
# hand (checked with `dpkg -S` on each DT_NEEDED library): dpkg-shlibdeps
# would see the build tree's RUNPATH and name llvm-22-dev. clang-22 and
# lld-22 load the plugin and link the plan; valgrind records the profile
# without a PMU.
set(CPACK_PACKAGE_NAME keel)
set(CPACK_PACKAGE_VENDOR "Keel")
set(CPACK_PACKAGE_CONTACT "Keel developers <keel@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "profile-guided layout optimizer and performance-stability checker for LLVM builds")
set(CPACK_PACKAGE_DESCRIPTION
  "Keel profiles a program (exact with valgrind, or LBR samples), plans a code and data layout, applies it with an LLVM 22 pass plugin and lld ordering files or linker scripts, and measures how much the program's speed depends on its layout (layout-sweep).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# keel-sim (lib/keel/keel-sim) embeds valgrind's core: it needs the release
# it was built against (checker/keel-sim/CMakeLists.txt).
set(keel_valgrind_dep valgrind)
if(KEEL_SIM_AVAILABLE AND KEEL_VALGRIND_SERIES)
  list(GET KEEL_VALGRIND_SERIES 0 vg_this)
  list(GET KEEL_VALGRIND_SERIES 1 vg_next)
  set(keel_valgrind_dep "valgrind (>= 1:${vg_this}), valgrind (<< 1:${vg_next})")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS
  "libc6 (>= 2.36), libstdc++6 (>= 12), libgcc-s1, libllvm22 (>= 1:22.1.0), libfmt9, libpfm4, libzstd1, clang-22, lld-22, ${keel_valgrind_dep}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "llvm-22, python3")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bolt-22, linux-perf, cmake")
set(CPACK_GENERATOR DEB)
include(CPack)
