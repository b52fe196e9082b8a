// SPDX-License-Identifier: MIT
// Where the HTTP server listens: a host (an IP address or a name) and a TCP port, parsed from
// `--listen`, and whether that host is a loopback address (the security rules differ).
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "core/error.h"

namespace gpumeter::net {

inline constexpr int kDefaultHttpPort = 9416;

struct ListenAddress {
  std::string host = "127.0.0.1";  // without brackets, also for IPv6 ("::1")
  int port = kDefaultHttpPort;     // 0: any free port (tests)
};

// "HOST:PORT", "[IPV6]:PORT" or ":PORT" (which keeps the loopback default host; listening on
// every address takes an explicit "0.0.0.0:PORT" or "[::]:PORT"). PORT is 0 to 65535.
// Errors: invalid_input naming the text and the form expected.
std::expected<ListenAddress, Error> parse_listen(std::string_view text);

// "127.0.0.1:9416", "[::1]:9416": the form parse_listen() reads.
std::string to_string(const ListenAddress& address);

// True for the names and addresses that only this machine can reach: "localhost",
// 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104. Any other name counts as reachable from outside
// (a name may resolve to anything).
bool is_loopback(std::string_view host);

}  // namespace gpumeter::net
