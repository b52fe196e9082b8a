// SPDX-License-Identifier: MIT
#include "net/dashboard_assets.h"

#include <algorithm>

#include "net/dashboard_asset_table.h"

namespace gpumeter::net {

std::optional<DashboardAsset> dashboard_asset(std::string_view path) {
  if (path == "/index.html") path = "/";
  const std::span<const AssetEntry> table = dashboard_asset_table();
  const auto found = std::ranges::lower_bound(table, path, {}, &AssetEntry::path);
  if (found == table.end() || found->path != path) return std::nullopt;
  return DashboardAsset{
      .content_type = found->content_type, .bytes = found->bytes, .etag = found->etag};
}

}  // namespace gpumeter::net
