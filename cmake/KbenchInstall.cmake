# Installs the layered libraries, their headers and a package configuration, so that a CMake project finds
# them with find_package(kbench) and links kbench::core, kbench::cpu, kbench::backends, ... (README, "Use
# kbench as a library"; tests/consumer builds a program against the installed tree).
include(CMakePackageConfigHelpers)

install(TARGETS ${KBENCH_EXPORTED_TARGETS} EXPORT kbenchTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/kbench DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.hpp")
install(FILES "${CMAKE_BINARY_DIR}/generated/kbench/build_config.hpp"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kbench)

set(KBENCH_CONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kbench)
install(EXPORT kbenchTargets NAMESPACE kbench:: DESTINATION ${KBENCH_CONFIG_DIR})
configure_package_config_file(cmake/kbenchConfig.cmake.in "${CMAKE_BINARY_DIR}/kbenchConfig.cmake"
                              INSTALL_DESTINATION ${KBENCH_CONFIG_DIR})
write_basic_package_version_file("${CMAKE_BINARY_DIR}/kbenchConfigVersion.cmake"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_BINARY_DIR}/kbenchConfig.cmake" "${CMAKE_BINARY_DIR}/kbenchConfigVersion.cmake"
        DESTINATION ${KBENCH_CONFIG_DIR})
