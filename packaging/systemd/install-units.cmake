# SPDX-License-Identifier: MIT
# Runs at `cmake --install` time (install(CODE) in CMakeLists.txt), so that the units name the
# binary and the config file under the prefix the installation really uses (`--prefix` may
# differ from the configured CMAKE_INSTALL_PREFIX). Expects GPUMETER_SYSTEMD_SOURCE_DIR,
# GPUMETER_SYSTEMD_UNIT_DIR, GPUMETER_EXAMPLE_CONFIG and CMAKE_INSTALL_BINDIR.
set(prefix "${CMAKE_INSTALL_PREFIX}")
# GNUInstallDirs' rule: the /usr prefix keeps its configuration in /etc.
if(prefix STREQUAL "/usr")
  set(sysconfdir "/etc")
else()
  set(sysconfdir "${prefix}/etc")
endif()
if(IS_ABSOLUTE "${GPUMETER_SYSTEMD_UNIT_DIR}")
  set(unit_dir "${GPUMETER_SYSTEMD_UNIT_DIR}")
else()
  set(unit_dir "${prefix}/${GPUMETER_SYSTEMD_UNIT_DIR}")
endif()
if(IS_ABSOLUTE "${GPUMETER_SYSTEMD_USER_UNIT_DIR}")
  set(user_unit_dir "${GPUMETER_SYSTEMD_USER_UNIT_DIR}")
else()
  set(user_unit_dir "${prefix}/${GPUMETER_SYSTEMD_USER_UNIT_DIR}")
endif()
set(GPUMETER_BINARY "${prefix}/${CMAKE_INSTALL_BINDIR}/gpumeter")
set(GPUMETER_CONFIG "${sysconfdir}/gpumeter/gpumeter.toml")

foreach(unit gpumeter.service gpumeter-record.service)
  configure_file("${GPUMETER_SYSTEMD_SOURCE_DIR}/${unit}.in" "$ENV{DESTDIR}${unit_dir}/${unit}" @ONLY)
  message(STATUS "Installing: $ENV{DESTDIR}${unit_dir}/${unit}")
endforeach()
# file(INSTALL) puts $ENV{DESTDIR} before an absolute DESTINATION itself; configure_file above
# does not, hence the difference.
file(INSTALL "${GPUMETER_SYSTEMD_SOURCE_DIR}/gpumeter-record.timer" DESTINATION "${unit_dir}")
# The user units: a user's own statistics (systemctl --user enable --now gpumeter-stats.timer).
configure_file("${GPUMETER_SYSTEMD_SOURCE_DIR}/gpumeter-stats.service.in"
               "$ENV{DESTDIR}${user_unit_dir}/gpumeter-stats.service" @ONLY)
message(STATUS "Installing: $ENV{DESTDIR}${user_unit_dir}/gpumeter-stats.service")
file(INSTALL "${GPUMETER_SYSTEMD_SOURCE_DIR}/gpumeter-stats.timer" DESTINATION "${user_unit_dir}")
# An administrator's config is never overwritten.
if(NOT EXISTS "$ENV{DESTDIR}${GPUMETER_CONFIG}")
  file(INSTALL "${GPUMETER_EXAMPLE_CONFIG}" DESTINATION "${sysconfdir}/gpumeter"
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
else()
  message(STATUS "Keeping: $ENV{DESTDIR}${GPUMETER_CONFIG}")
endif()
