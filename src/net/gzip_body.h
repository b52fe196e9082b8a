// SPDX-License-Identifier: MIT
// gzip compression of HTTP response bodies (zlib), for clients that accept it: /metrics and
// the JSON documents shrink five- to tenfold.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpumeter::net {

// Whether an Accept-Encoding header value accepts gzip ("gzip", "gzip;q=0.5", "*"), not
// refused with q=0.
bool accepts_gzip(std::string_view accept_encoding);

// Whether a body of this Content-Type is worth compressing (text, JSON, JavaScript, XML, SVG).
bool compressible(std::string_view content_type);

// `body` as a gzip stream; nothing if zlib fails (out of memory).
std::optional<std::string> gzip(std::string_view body);

}  // namespace gpumeter::net
