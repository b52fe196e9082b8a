# SPDX-License-Identifier: MIT
# Run by cpack after it made the packages (CPACK_POST_BUILD_SCRIPTS): the -dbgsym package
# CMake 3.25 makes lists its files in md5sums by their absolute staging paths, and has no
# documentation directory. Rebuilt here: md5sums of its own files, and
# /usr/share/doc/gpumeter-dbgsym pointing at gpumeter's (it depends on that exact version), as
# Debian's debug packages have it.
foreach(package IN LISTS CPACK_PACKAGE_FILES)
  if(NOT package MATCHES "\\.ddeb$")
    continue()
  endif()
  set(tree "${package}.tree")
  file(REMOVE_RECURSE "${tree}")
  execute_process(COMMAND dpkg-deb -R "${package}" "${tree}" COMMAND_ERROR_IS_FATAL ANY)
  file(MAKE_DIRECTORY "${tree}/usr/share/doc")
  file(CREATE_LINK gpumeter "${tree}/usr/share/doc/gpumeter-dbgsym" SYMBOLIC)
  execute_process(COMMAND sh -c "find usr -type f | LC_ALL=C sort | xargs md5sum > DEBIAN/md5sums"
                  WORKING_DIRECTORY "${tree}" COMMAND_ERROR_IS_FATAL ANY)
  execute_process(COMMAND dpkg-deb --root-owner-group -Zgzip -z1 -b "${tree}" "${package}"
                  OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
  file(REMOVE_RECURSE "${tree}")
endforeach()
