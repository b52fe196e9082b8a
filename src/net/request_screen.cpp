// SPDX-License-Identifier: MIT
#include "net/request_screen.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <system_error>

namespace gpumeter::net {
namespace {

// The announced body length: SIZE_MAX for a number too large, nothing for one that is not a
// number or for two Content-Length fields that disagree (RFC 9112 section 6.3).
std::optional<std::size_t> content_length(const httplib::Request& request) {
  std::optional<std::size_t> length;
  const auto [first, last] = request.headers.equal_range("Content-Length");
  for (auto field = first; field != last; ++field) {
    const std::string& text = field->second;
    std::size_t bytes = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), bytes);
    if (error == std::errc::result_out_of_range)
      bytes = SIZE_MAX;
    else if (error != std::errc{} || end != text.data() + text.size())
      return std::nullopt;
    if (length && *length != bytes) return std::nullopt;
    length = bytes;
  }
  return length.value_or(0);
}

std::optional<Refusal> malformed(const httplib::Request& request) {
  if (request.version == "HTTP/1.1" && request.get_header_value_count("Host") != 1) {
    return Refusal{
        .status = 400, .reason = "HTTP/1.1 needs exactly one Host header", .close = true};
  }
  if (!content_length(request)) {
    return Refusal{.status = 400, .reason = "Content-Length is not one number", .close = true};
  }
  if (request.has_header("Transfer-Encoding") && request.has_header("Content-Length")) {
    return Refusal{
        .status = 400, .reason = "both Transfer-Encoding and Content-Length", .close = true};
  }
  return std::nullopt;
}

std::optional<Refusal> too_large(const httplib::Request& request, std::size_t target_bytes,
                                 const ScreenLimits& limits) {
  if (target_bytes > limits.max_uri_bytes) {
    return Refusal{
        .status = 414,
        .reason = fmt::format("request target longer than {} bytes", limits.max_uri_bytes),
        .close = true};
  }
  std::size_t bytes = 0;
  for (const auto& [name, value] : request.headers) bytes += name.size() + value.size();
  if (request.headers.size() > limits.max_header_fields || bytes > limits.max_header_bytes) {
    return Refusal{.status = 431,
                   .reason = fmt::format("more than {} header fields or {} header bytes",
                                         limits.max_header_fields, limits.max_header_bytes),
                   .close = true};
  }
  return std::nullopt;
}

}  // namespace

bool announces_body(const httplib::Request& request) {
  return request.has_header("Transfer-Encoding") || content_length(request).value_or(1) != 0;
}

std::optional<Refusal> screen(const httplib::Request& request, std::size_t target_bytes,
                              const ScreenLimits& limits, const HostAllowList& hosts) {
  if (auto refusal = malformed(request)) return refusal;
  if (auto refusal = too_large(request, target_bytes, limits)) return refusal;
  if (request.has_header("Host") && !hosts.allows(request.get_header_value("Host"))) {
    return Refusal{.status = 421, .reason = "this server does not answer to that Host name"};
  }
  const bool body = announces_body(request);
  if (request.has_header("Transfer-Encoding") || content_length(request) > limits.max_body_bytes) {
    return Refusal{
        .status = 413,
        .reason = fmt::format("request body larger than {} bytes", limits.max_body_bytes),
        .close = true};
  }
  if (request.method != "GET" && request.method != "HEAD") {
    return Refusal{
        .status = 405, .reason = "method not allowed: only GET and HEAD are served", .close = body};
  }
  return std::nullopt;
}

}  // namespace gpumeter::net
