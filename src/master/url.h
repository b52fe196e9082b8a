// SPDX-License-Identifier: MIT
// Where the master reaches an agent: an http or https URL split into the parts an HTTP client
// needs, with an optional path prefix for agents behind a reverse proxy.
#pragma once

#include <expected>
#include <string>
#include <string_view>

#include "core/error.h"

namespace gpumeter::master {

struct AgentUrl {
  bool https = false;
  std::string host;       // a name, an IPv4 address, or an IPv6 address without brackets
  int port = 0;           // kDefaultAgentPort when the URL names none, for http and https
  std::string base_path;  // "" or "/prefix", without a trailing slash

  // "http://host:port" or "https://[::1]:port": what an HTTP client connects to.
  std::string origin() const;
  // The path of an agent endpoint under the prefix: path("/api/v1/status").
  std::string path(std::string_view endpoint) const;
};

// The port when a URL names none, whatever its scheme: the daemon's default --listen port (an
// agent behind a proxy on 443 is written with its port: https://proxy:443/gpu02).
inline constexpr int kDefaultAgentPort = 9416;

// "http://gpu01:9416", "https://gpu02.example.org/gpumeter/", "http://[fd00::2]:9416".
// Errors: invalid_input naming what was expected (scheme http or https, a host, a port from 1
// to 65535, no query or fragment, no user name).
// `default_port` stands in when the URL names none (a Prometheus server's is 9090).
std::expected<AgentUrl, Error> parse_agent_url(std::string_view text,
                                               int default_port = kDefaultAgentPort);

}  // namespace gpumeter::master
