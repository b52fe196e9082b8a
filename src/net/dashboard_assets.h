// SPDX-License-Identifier: MIT
// The web dashboard's files, built into the binary (no CDN, no files to install: it works
// offline and cannot drift from the server that serves it).
#pragma once

#include <optional>
#include <string_view>

namespace gpumeter::net {

struct DashboardAsset {
  std::string_view content_type;  // a Content-Type header value
  std::string_view bytes;         // the file's bytes; static storage, valid for the program
  std::string_view etag;          // a strong ETag for the bytes, quotes included
};

// The file served at the URL path `path` (without query): "/" (also "/index.html") is the
// page, "/assets/..." its scripts, styles and the chart library. nullopt for any other path.
std::optional<DashboardAsset> dashboard_asset(std::string_view path);

}  // namespace gpumeter::net
