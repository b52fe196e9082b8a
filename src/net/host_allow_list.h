// SPDX-License-Identifier: MIT
// Which `Host` header values the HTTP server answers: its defence against DNS rebinding, where
// a web page has its own name resolve to 127.0.0.1 so that a browser on this machine, believing
// it talks to the page's site, reads the tokenless loopback server. The browser still sends the
// page's name as Host, so the server answers only the names it knows (docs/http.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpumeter::net {

class HostAllowList {
 public:
  // Allows "localhost", every loopback address, `listen_host` and `extra_names`. A wildcard
  // `listen_host` ("0.0.0.0", "::") allows every Host: such a server answers to any name the
  // machine has, and needs a bearer token, which a rebinding page does not have.
  HostAllowList(std::string_view listen_host, const std::vector<std::string>& extra_names);

  // `value` is a Host header as sent: "name", "name:port", "1.2.3.4:80", "[::1]:9416". Names
  // compare without case and without a trailing dot; the port is not checked (the connection
  // reached the bound one). An empty or malformed value is not allowed.
  bool allows(std::string_view value) const;

 private:
  std::vector<std::string> names_;  // lower case, without brackets
  bool any_ = false;
};

}  // namespace gpumeter::net
