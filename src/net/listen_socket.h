// SPDX-License-Identifier: MIT
// The HTTP server's listening TCP socket, made before the server starts so that bind errors
// are reported by open() and port 0 is resolved to the port the kernel chose.
#pragma once

#include <expected>

#include "core/error.h"
#include "net/listen_address.h"

namespace gpumeter::net {

struct ListenSocket {
  int fd = -1;   // listening, non-blocking, close-on-exec; the caller owns it
  int port = 0;  // the bound port
};

// Resolves `address.host` (an address or a name; the first address that binds wins), binds
// with SO_REUSEADDR (a restarted server binds again at once; no SO_REUSEPORT, which would let a
// second server share the port silently) and listens with the system's largest backlog.
// Errors: io naming the address and the reason (no such address, address in use, ...).
std::expected<ListenSocket, Error> listen_on(const ListenAddress& address);

}  // namespace gpumeter::net
