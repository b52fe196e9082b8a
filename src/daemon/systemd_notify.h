// SPDX-License-Identifier: MIT
// The readiness protocol of systemd's Type=notify services, without libsystemd: a datagram to
// the socket named by $NOTIFY_SOCKET (docs/daemon.md, "Running it under systemd").
#pragma once

#include <string_view>

namespace gpumeter::daemon {

// Sends `state` ("READY=1", "STOPPING=1", "STATUS=...", one per line) when $NOTIFY_SOCKET is
// set; true when it was sent. Without the variable (not started by systemd) it does nothing
// and answers false; a failure to send is not an error either: the service manager then
// decides by its timeout.
bool notify_systemd(std::string_view state);

}  // namespace gpumeter::daemon
