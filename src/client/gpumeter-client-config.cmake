# SPDX-License-Identifier: MIT
# find_package(gpumeter-client): the imported target gpumeter::client (libgpumeter-client.so and
# its headers). The library's only dependency is the C++ runtime, so nothing else is needed.
include("${CMAKE_CURRENT_LIST_DIR}/gpumeter-client-targets.cmake")
