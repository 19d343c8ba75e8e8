# kbench_feature(<NAME> <package> <found_var>)
# An optional dependency: KBENCH_WITH_<NAME> is ON (the package must be found), OFF (not looked for) or AUTO
# (used where found). Sets KBENCH_HAS_<NAME> to 1 or 0, for CMake and build_config.hpp. A macro, so that the
# package's variables (include directories, library paths) stay visible to the caller.
macro(kbench_feature name package found_var)
  set(KBENCH_HAS_${name} 0)
  if(NOT KBENCH_WITH_${name} STREQUAL "OFF")
    find_package(${package} QUIET)
    if(${found_var})
      set(KBENCH_HAS_${name} 1)
    elseif(KBENCH_WITH_${name} STREQUAL "ON")
      message(FATAL_ERROR "KBENCH_WITH_${name}=ON but ${package} was not found")
    endif()
  endif()
endmacro()
