# `cmake --install <build> --prefix P`: the public headers under P/include/dualjit (folder
# structure kept), the static libraries, the dualjit command, and the CMake package that
# find_package(dualjit CONFIG) reads (P/lib/cmake/dualjit).
include(CMakePackageConfigHelpers)

set(dualjit_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/dualjit)

install(DIRECTORY dsl jit backends solvers DESTINATION ${DUALJIT_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(DIRECTORY tools/registry DESTINATION ${DUALJIT_INSTALL_INCLUDEDIR}/tools
        FILES_MATCHING PATTERN "*.h")

install(TARGETS dualjit dualjit_dsl dualjit_jit dualjit_cuda dualjit_cpu dualjit_mesh
                dualjit_assembly dualjit_tuning dualjit_solvers dualjit_registry dualjit_cli
        EXPORT dualjitTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# dualjit::cli, the command; it keeps the path to NVRTC it was linked with.
set_target_properties(dualjit_cli PROPERTIES EXPORT_NAME cli INSTALL_RPATH_USE_LINK_PATH ON)
install(EXPORT dualjitTargets NAMESPACE dualjit:: DESTINATION ${dualjit_package_dir})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/dualjitConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/dualjitConfig.cmake
                              INSTALL_DESTINATION ${dualjit_package_dir})
# No stable interface yet: a package of another minor version is not accepted.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/dualjitConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/dualjitConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/dualjitConfigVersion.cmake
        DESTINATION ${dualjit_package_dir})
