// SPDX-License-Identifier: MIT
#include "net/gzip_body.h"

#include <zlib.h>

#include "core/text.h"

namespace gpumeter::net {
namespace {

constexpr int kGzipWindowBits = 15 + 16;  // zlib's largest window, with a gzip wrapper
constexpr int kMemoryLevel = 8;           // zlib's default
// Level 1 (fastest): for the small documents served it compresses almost as well as the
// default level at a third of the CPU.
constexpr int kLevel = 1;

// Whether an Accept-Encoding item's parameters say q=0 ("gzip;q=0", "gzip; q=0.000").
bool refused(std::string_view parameters) {
  const std::size_t q = parameters.find("q=");
  if (q == std::string_view::npos) return false;
  const std::string_view value = trim(parameters.substr(q + 2));
  return value.find_first_not_of("0.") == std::string_view::npos;
}

}  // namespace

bool accepts_gzip(std::string_view accept_encoding) {
  while (!accept_encoding.empty()) {
    const std::size_t comma = accept_encoding.find(',');
    const std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding =
        comma == std::string_view::npos ? std::string_view{} : accept_encoding.substr(comma + 1);
    const std::size_t semicolon = item.find(';');
    const std::string_view coding = trim(item.substr(0, semicolon));
    if (coding != "gzip" && coding != "*") continue;
    return semicolon == std::string_view::npos || !refused(item.substr(semicolon + 1));
  }
  return false;
}

bool compressible(std::string_view content_type) {
  if (content_type.starts_with("text/")) return !content_type.starts_with("text/event-stream");
  for (const std::string_view type :
       {"application/json", "application/javascript", "application/xml", "image/svg+xml"}) {
    if (content_type.starts_with(type)) return true;
  }
  return false;
}

std::optional<std::string> gzip(std::string_view body) {
  z_stream stream{};
  if (deflateInit2(&stream, kLevel, Z_DEFLATED, kGzipWindowBits, kMemoryLevel,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return std::nullopt;
  }
  std::string out(deflateBound(&stream, body.size()), '\0');
  // zlib's interface is not const-correct; it only reads next_in.
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));  // NOLINT
  stream.avail_in = static_cast<uInt>(body.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());  // NOLINT(*-reinterpret-cast)
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) return std::nullopt;
  return out;
}

}  // namespace gpumeter::net
