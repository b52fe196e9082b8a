// SPDX-License-Identifier: MIT
// The table of the dashboard's embedded files, written at build time by
// cmake/EmbedAssets.cmake from the files under web/ (and the chart library's from
// web/node_modules). Private to src/net: everything else asks dashboard_asset().
#pragma once

#include <span>
#include <string_view>

namespace gpumeter::net {

struct AssetEntry {
  std::string_view path;          // the URL path, "/" for the page itself
  std::string_view content_type;  // "text/javascript; charset=utf-8"
  std::string_view etag;          // a strong ETag, quotes included
  std::string_view bytes;
};

// Every embedded file, sorted by path.
std::span<const AssetEntry> dashboard_asset_table();

}  // namespace gpumeter::net
