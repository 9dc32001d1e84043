# `cmake --install`: the C header, libpapcoll (versioned soname), the interposition library, the
# CLIs, a CMake package (find_package(papcoll) -> papcoll::papcoll) and a pkg-config file
# (docs/install.md).
include(CMakePackageConfigHelpers)

install(FILES include/papcoll/papcoll.h include/papcoll/stale.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/papcoll)
install(TARGETS papcoll EXPORT papcollTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS papcoll-intercept LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(tool papcoll-sched papcoll-bench papcoll-model)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

set(PAPCOLL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/papcoll)
install(EXPORT papcollTargets NAMESPACE papcoll:: DESTINATION ${PAPCOLL_CMAKE_DIR})
configure_package_config_file(cmake/papcollConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/papcollConfig.cmake
                              INSTALL_DESTINATION ${PAPCOLL_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/papcollConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/papcollConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/papcollConfigVersion.cmake
        DESTINATION ${PAPCOLL_CMAKE_DIR})

# Relocatable: the prefix is found from the .pc file's own place, so `cmake --install --prefix`
# and a moved tree both work.
file(RELATIVE_PATH PAPCOLL_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(cmake/papcoll.pc.in ${CMAKE_CURRENT_BINARY_DIR}/papcoll.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/papcoll.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
