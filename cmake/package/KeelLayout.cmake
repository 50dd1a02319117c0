# keel_layout(TARGET <target> [PLAN <dir>] [WORKLOAD <args>...]
#             [WORKING_DIRECTORY <dir>] [ORDER_OPTIONS <layout-order options>...])
#
# Turns an executable target into a Keel build (docs/install.md):
#  - always: -ffunction-sections -fdata-sections -fbasic-block-address-map
#    and -fpass-plugin=LayoutOpt.so (the plugin does nothing without a plan),
#    and DWARF 4 whenever -g is on (valgrind 3.19 cannot read clang's DWARF 5);
#  - when <PLAN>/plan.yaml exists: -mllvm -layout-plan=<PLAN>/plan.yaml at
#    compile time, and ld.lld with <PLAN>/order.txt and <PLAN>/layout.ld at
#    link time (the sources recompile and the target relinks when they change);
#  - always: the link runs through layout-link (the target's C/CXX
#    LINKER_LAUNCHER, CMake >= 3.21), which saves the link command beside
#    the binary (<target>.keel-link.json) so a bare `layout-sweep ./<target>`
#    also sweeps the code and data axes by relinking it with a pad;
#  - a target <target>-keel-profile that runs the program with WORKLOAD as its
#    arguments under `layout-record --source=valgrind` and re-plans into PLAN
#    with `layout-order`. The next build reconfigures (a stamp file tells
#    CMake the plan changed) and rebuilds the program with the new plan.
#  - always (CMake >= 3.21): the compiles and the link also run through
#    keel-cc, which records them in <target>.keel-commands.jsonl, and a
#    target <target>-keel-optimize runs `layout-optimize` on that log (no
#    build of its own): profile on WORKLOAD, the recommended plan (block
#    sections included), the program's objects rebuilt with the plan's
#    compile.rsp and relinked with its link.rsp, the guard, the before/after
#    table; the optimized program is <target>.keel-optimize/<name>
#    (docs/optimize.md). Use it without a PLAN of the profile target: its
#    default build is the one without a plan.
#
# PLAN defaults to ${CMAKE_CURRENT_BINARY_DIR}/<target>.keel-plan; point it
# into the source tree to keep a checked-in plan.
function(keel_layout)
  cmake_parse_arguments(K "" "TARGET;PLAN;WORKING_DIRECTORY" "WORKLOAD;ORDER_OPTIONS" ${ARGN})
  if(K_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "keel_layout: unknown arguments: ${K_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT K_TARGET OR NOT TARGET "${K_TARGET}")
    message(FATAL_ERROR "keel_layout: TARGET must name an executable target (got '${K_TARGET}')")
  endif()
  get_target_property(_type ${K_TARGET} TYPE)
  if(NOT _type STREQUAL "EXECUTABLE")
    message(FATAL_ERROR "keel_layout: ${K_TARGET} is a ${_type}; only executables are profiled and linked with a plan")
  endif()
  # The plugin is built against LLVM ${KEEL_LLVM_MAJOR}: only a clang of that
  # major version can load it.
  foreach(_lang C CXX)
    if(CMAKE_${_lang}_COMPILER_LOADED AND NOT (CMAKE_${_lang}_COMPILER_ID MATCHES "Clang"
       AND CMAKE_${_lang}_COMPILER_VERSION VERSION_GREATER_EQUAL ${KEEL_LLVM_MAJOR}
       AND CMAKE_${_lang}_COMPILER_VERSION VERSION_LESS ${KEEL_LLVM_MAJOR}.99))
      message(FATAL_ERROR "keel_layout: ${_lang} compiler is ${CMAKE_${_lang}_COMPILER_ID} "
        "${CMAKE_${_lang}_COMPILER_VERSION}; LayoutOpt.so needs clang ${KEEL_LLVM_MAJOR} "
        "(e.g. -DCMAKE_${_lang}_COMPILER=clang-${KEEL_LLVM_MAJOR})")
    endif()
  endforeach()

  set(t ${K_TARGET})
  if(NOT K_PLAN)
    set(K_PLAN "${CMAKE_CURRENT_BINARY_DIR}/${t}.keel-plan")
  endif()
  get_filename_component(K_PLAN "${K_PLAN}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  if(NOT K_WORKING_DIRECTORY)
    set(K_WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
  endif()

  target_compile_options(${t} PRIVATE
    -ffunction-sections -fdata-sections -fbasic-block-address-map
    -fdebug-default-version=4 "-fpass-plugin=${KEEL_LAYOUTOPT_PLUGIN}")

  # Record the link for layout-sweep's code and data axes (docs/sweep.md).
  # The launcher word list is prepended to the link command.
  # keel-cc records the compiles and the link for <target>-keel-optimize.
  set(_log "${CMAKE_CURRENT_BINARY_DIR}/${t}.keel-commands.jsonl")
  set(_keel_cc "${KEEL_CC}" "--log=${_log}" --)
  if(CMAKE_VERSION VERSION_LESS 3.21)
    message(STATUS "Keel: CMake ${CMAKE_VERSION} has no LINKER_LAUNCHER (3.21); "
      "${t} is linked without layout-link, so a bare layout-sweep cannot relink it, "
      "and there is no ${t}-keel-optimize")
  else()
    foreach(_lang C CXX)
      get_target_property(_launcher ${t} ${_lang}_COMPILER_LAUNCHER)
      if(NOT _launcher)
        set(_launcher "${CMAKE_${_lang}_COMPILER_LAUNCHER}")
      endif()
      set_property(TARGET ${t} PROPERTY ${_lang}_COMPILER_LAUNCHER ${_keel_cc} ${_launcher})
      set_property(TARGET ${t} PROPERTY ${_lang}_LINKER_LAUNCHER "${KEEL_LAYOUT_LINK}" -- ${_keel_cc})
    endforeach()
  endif()

  # The profile target touches this stamp after re-planning; CMake re-runs
  # configure when it changes, and configure picks up the (new) plan.
  set(_stamp "${CMAKE_CURRENT_BINARY_DIR}/${t}.keel-plan.stamp")
  if(NOT EXISTS "${_stamp}")
    file(TOUCH "${_stamp}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_stamp}")

  set(_plan_files "${K_PLAN}/plan.yaml" "${K_PLAN}/order.txt" "${K_PLAN}/layout.ld")
  set(_have_plan TRUE)
  foreach(_f ${_plan_files})
    if(NOT EXISTS "${_f}")
      set(_have_plan FALSE)
    endif()
  endforeach()
  if(_have_plan)
    message(STATUS "Keel: ${t} uses the plan in ${K_PLAN}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_plan_files})
    target_compile_options(${t} PRIVATE "SHELL:-mllvm -layout-plan=${K_PLAN}/plan.yaml")
    # -z separate-code: the writable data keeps its page offset when code
    # grows (docs/planner.md, "Data that moves with the code").
    target_link_options(${t} PRIVATE -fuse-ld=lld -Wl,-z,keep-text-section-prefix
      -Wl,-z,separate-code
      "-Wl,--symbol-ordering-file=${K_PLAN}/order.txt" "-Wl,-T,${K_PLAN}/layout.ld")
    # Recompile when the plan changes, relink when the order or script do.
    get_target_property(_srcs ${t} SOURCES)
    get_target_property(_srcdir ${t} SOURCE_DIR)
    set_property(SOURCE ${_srcs} DIRECTORY "${_srcdir}" APPEND PROPERTY
      OBJECT_DEPENDS "${K_PLAN}/plan.yaml")
    set_property(TARGET ${t} APPEND PROPERTY LINK_DEPENDS
      "${K_PLAN}/order.txt" "${K_PLAN}/layout.ld")
  else()
    message(STATUS "Keel: ${t} has no plan yet (build ${t}-keel-profile to make one in ${K_PLAN})")
  endif()

  set(_fdata "${CMAKE_CURRENT_BINARY_DIR}/${t}.keel.fdata")
  add_custom_target(${t}-keel-profile
    COMMAND "${KEEL_LAYOUT_RECORD}" --source=valgrind -o "${_fdata}"
            -- "$<TARGET_FILE:${t}>" ${K_WORKLOAD}
    COMMAND "${KEEL_LAYOUT_ORDER}" --preset=functions --binary "$<TARGET_FILE:${t}>" --profile "${_fdata}"
            -o "${K_PLAN}" ${K_ORDER_OPTIONS}
    COMMAND "${CMAKE_COMMAND}" -E touch "${_stamp}"
    DEPENDS ${t}
    BYPRODUCTS "${_fdata}"
    WORKING_DIRECTORY "${K_WORKING_DIRECTORY}"
    COMMENT "Keel: profiling ${t} under valgrind and re-planning into ${K_PLAN}"
    VERBATIM USES_TERMINAL)

  if(NOT CMAKE_VERSION VERSION_LESS 3.21)
    # WORKLOAD as one --workload string: words with blanks or quotes quoted
    # for layout-optimize's splitting (quotes group, no shell).
    set(_workload "")
    foreach(_w ${K_WORKLOAD})
      if(_w MATCHES "[ \t'\"]" OR _w STREQUAL "")
        string(REPLACE "'" "'\"'\"'" _w "${_w}")
        set(_w "'${_w}'")
      endif()
      string(APPEND _workload " ${_w}")
    endforeach()
    string(STRIP "${_workload}" _workload)
    add_custom_target(${t}-keel-optimize
      COMMAND "${KEEL_LAYOUT_OPTIMIZE}" "--commands=${_log}"
              "--binary=$<TARGET_FILE:${t}>" "--dir=${CMAKE_CURRENT_BINARY_DIR}/${t}.keel-optimize"
              "--workload=${_workload}"
      DEPENDS ${t}
      WORKING_DIRECTORY "${K_WORKING_DIRECTORY}"
      COMMENT "Keel: the recommended layout of ${t} (layout-optimize)"
      VERBATIM USES_TERMINAL)
  endif()
endfunction()
