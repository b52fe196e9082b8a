// SPDX-License-Identifier: MIT
#include "net/listen_address.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>

#include <charconv>

namespace gpumeter::net {
namespace {

Error bad_listen(std::string_view text, std::string_view why) {
  return Error{
      ErrorCode::invalid_input,
      fmt::format("--listen {}: {} (expected HOST:PORT, [IPV6]:PORT or :PORT)", text, why)};
}

std::expected<int, Error> parse_port(std::string_view text, std::string_view port) {
  int value = -1;
  const auto* begin = port.begin();
  const auto* end = port.end();
  const auto [stop, error] = std::from_chars(begin, end, value);
  if (port.empty() || error != std::errc{} || stop != end || value < 0 || value > 65535) {
    return std::unexpected(bad_listen(text, fmt::format("'{}' is not a port (0 to 65535)", port)));
  }
  return value;
}

// Splits "[v6]:port" and "host:port" at the colon before the port.
std::expected<ListenAddress, Error> split(std::string_view text) {
  ListenAddress address;
  std::string_view port;
  if (text.starts_with('[')) {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return std::unexpected(bad_listen(text, "an IPv6 address in brackets needs ]:PORT"));
    }
    address.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return std::unexpected(bad_listen(text, "no port"));
    if (text.substr(0, colon).find(':') != std::string_view::npos) {
      return std::unexpected(bad_listen(text, "write an IPv6 address in brackets"));
    }
    if (colon > 0) address.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
  }
  auto number = parse_port(text, port);
  if (!number) return std::unexpected(std::move(number.error()));
  address.port = *number;
  return address;
}

}  // namespace

std::expected<ListenAddress, Error> parse_listen(std::string_view text) {
  auto address = split(text);
  if (!address) return address;
  if (address->host.empty()) return std::unexpected(bad_listen(text, "empty host"));
  in6_addr v6{};
  if (text.starts_with('[') && ::inet_pton(AF_INET6, address->host.c_str(), &v6) != 1) {
    return std::unexpected(
        bad_listen(text, fmt::format("'{}' is not an IPv6 address", address->host)));
  }
  return address;
}

std::string to_string(const ListenAddress& address) {
  if (address.host.find(':') != std::string::npos) {
    return fmt::format("[{}]:{}", address.host, address.port);
  }
  return fmt::format("{}:{}", address.host, address.port);
}

bool is_loopback(std::string_view host) {
  if (host == "localhost") return true;
  const std::string text(host);
  in_addr v4{};
  if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (::inet_pton(AF_INET6, text.c_str(), &v6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

}  // namespace gpumeter::net
