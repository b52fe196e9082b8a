// SPDX-License-Identifier: MIT
#include "master/url.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>

namespace gpumeter::master {
namespace {

std::unexpected<Error> bad_url(std::string_view text, std::string_view expected) {
  return std::unexpected(
      Error{ErrorCode::invalid_input, fmt::format("\"{}\": expected {}", text, expected)});
}

struct HostPort {
  std::string host;
  std::string_view port;  // empty when absent
};

// "host", "host:port", "[v6]", "[v6]:port"; absent for a malformed authority.
std::optional<HostPort> split_authority(std::string_view authority) {
  if (authority.starts_with('[')) {
    const auto close = authority.find(']');
    if (close == std::string_view::npos || close == 1) return std::nullopt;
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return std::nullopt;
    return HostPort{std::string(authority.substr(1, close - 1)),
                    rest.empty() ? rest : rest.substr(1)};
  }
  const auto colon = authority.find(':');
  if (colon == std::string_view::npos) return HostPort{std::string(authority), {}};
  if (authority.find(':', colon + 1) != std::string_view::npos) return std::nullopt;
  return HostPort{std::string(authority.substr(0, colon)), authority.substr(colon + 1)};
}

std::optional<int> parse_port(std::string_view text) {
  int port = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (error != std::errc{} || end != text.data() + text.size() || port < 1 || port > 65535) {
    return std::nullopt;
  }
  return port;
}

}  // namespace

std::string AgentUrl::origin() const {
  const bool v6 = host.find(':') != std::string::npos;
  return fmt::format("{}://{}{}{}:{}", https ? "https" : "http", v6 ? "[" : "", host, v6 ? "]" : "",
                     port);
}

std::string AgentUrl::path(std::string_view endpoint) const {
  return base_path + std::string(endpoint);
}

std::expected<AgentUrl, Error> parse_agent_url(std::string_view text, int default_port) {
  AgentUrl url;
  std::string_view rest = text;
  if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.starts_with("https://")) {
    rest.remove_prefix(8);
    url.https = true;
  } else {
    return bad_url(text, "a URL that starts with http:// or https://");
  }
  if (rest.find_first_of("?#") != std::string_view::npos) {
    return bad_url(text, "a URL without a query or fragment");
  }
  const auto slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  if (authority.find('@') != std::string_view::npos) {
    return bad_url(text, "no user name in the URL (put a token in token-file)");
  }
  const auto host_port = split_authority(authority);
  if (!host_port || host_port->host.empty()) return bad_url(text, "a host name or address");
  url.host = host_port->host;
  url.port = default_port;
  if (!host_port->port.empty()) {
    const auto port = parse_port(host_port->port);
    if (!port) return bad_url(text, "a port from 1 to 65535");
    url.port = *port;
  }
  if (slash != std::string_view::npos) {
    std::string_view path = rest.substr(slash);
    while (path.ends_with('/')) path.remove_suffix(1);
    url.base_path = std::string(path);
  }
  return url;
}

}  // namespace gpumeter::master
