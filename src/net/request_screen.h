// SPDX-License-Identifier: MIT
// The checks every request passes before it is routed, on the parsed request alone: what RFC
// 9112 rejects and the parser let through, the size limits, the Host allow-list and the
// methods served. Each refusal is a status and a one-line reason for a JSON error.
#pragma once

#include <httplib.h>

#include <cstddef>
#include <optional>
#include <string>

#include "net/host_allow_list.h"

namespace gpumeter::net {

struct ScreenLimits {
  std::size_t max_uri_bytes = std::size_t{8} * 1024;  // request target; more is a 414
  std::size_t max_header_fields = 100;                // header lines; more is a 431
  std::size_t max_header_bytes =
      std::size_t{16} * 1024;  // names and values together; more is a 431
  std::size_t max_body_bytes =
      std::size_t{64} * 1024;  // announced body; more (or chunked) is a 413
};

struct Refusal {
  int status = 400;
  std::string reason;
  bool close = false;  // the connection must be closed after the answer
};

// Why `request` is refused, or nothing when it may be routed. `target_bytes` is the length of
// the request target as sent (path and query). Checked in this order: 400 for a malformed
// request (HTTP/1.1 without exactly one Host, two different Content-Lengths, a Content-Length
// that is not a number, Content-Length with Transfer-Encoding), 414, 431, 421 for a Host not on
// `hosts`, 413, 405 for a method other than GET and HEAD.
std::optional<Refusal> screen(const httplib::Request& request, std::size_t target_bytes,
                              const ScreenLimits& limits, const HostAllowList& hosts);

// Whether the request announces a body (which no route reads, so the connection is closed
// after the answer rather than the body read as the next request).
bool announces_body(const httplib::Request& request);

}  // namespace gpumeter::net
