# SPDX-License-Identifier: MIT
# `cpack -G DEB` in a build tree: gpumeter's Debian package (README.md, "Install"). Everything
# `cmake --install` installs, under /usr, with the config in /etc/gpumeter as a conffile, the
# binaries stripped and their debug information in a -dbgsym package, and the files Debian
# policy asks of every package (copyright, changelog). `cpack -B DIR` writes gpumeter_VERSION_ARCH.deb
# and gpumeter-dbgsym_VERSION_ARCH.ddeb there.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gpumeter)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "the gpumeter authors")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "measure and account for GPU use per device, process, task and user")
set(CPACK_PACKAGE_DESCRIPTION
    "gpumeter reads NVIDIA GPUs through NVML (and Jetson boards through their kernel\n\
files), shows which are free and who holds the busy ones, picks free GPUs for\n\
CUDA_VISIBLE_DEVICES, and measures what each command, task and user used: GPU\n\
time, memory, energy, CPU. A daemon keeps the history and serves a web\n\
dashboard, JSON and Prometheus metrics; a master gathers a fleet.")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "gpumeter maintainers <maintainers@gpumeter.org>")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Dependencies from the binaries' own links (dpkg-shlibdeps); NVML is loaded at run time.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The shlibs of the one public library (CPack's would list the simulated NVML libraries of
# lib/gpumeter too, three of one name), and ldconfig run by trigger, as policy asks.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3")
# Not CPACK_STRIP_FILES: the debug package below splits the debug information off (it strips
# what it splits, and finds nothing to split in files stripped before).
# One package of every component (CPack splits the debug information per component package).
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
set(CPACK_POST_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/packaging/deb/repair-dbgsym.cmake)
# The control files: conffiles (the config is the administrator's once installed).
set(GPUMETER_DEB_CONTROL ${PROJECT_BINARY_DIR}/packaging/deb)
file(MAKE_DIRECTORY ${GPUMETER_DEB_CONTROL})
file(WRITE ${GPUMETER_DEB_CONTROL}/conffiles "/etc/gpumeter/gpumeter.toml\n")
file(WRITE ${GPUMETER_DEB_CONTROL}/shlibs
     "libgpumeter-client 1 gpumeter (>= ${PROJECT_VERSION})\n")
file(WRITE ${GPUMETER_DEB_CONTROL}/triggers "activate-noawait ldconfig\n")
# The maintainer scripts reload systemd's units (packaging/deb); ldconfig runs by trigger.
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${GPUMETER_DEB_CONTROL}/conffiles ${GPUMETER_DEB_CONTROL}/shlibs
    ${GPUMETER_DEB_CONTROL}/triggers ${PROJECT_SOURCE_DIR}/packaging/deb/postinst
    ${PROJECT_SOURCE_DIR}/packaging/deb/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
