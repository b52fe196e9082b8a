// SPDX-License-Identifier: MIT
#include "net/dashboard_routes.h"

#include <optional>
#include <string>
#include <string_view>

#include "core/text.h"
#include "net/dashboard_assets.h"
#include "net/response.h"

namespace gpumeter::net {
namespace {

// Scripts, styles and requests from this server only; no frames, plugins or forms elsewhere.
constexpr const char* kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

// Whether an If-None-Match header ("\"a\", W/\"b\"" or "*") names `etag` (weak comparison,
// as RFC 9110 asks for If-None-Match).
bool etag_matches(std::string_view header, std::string_view etag) {
  while (!header.empty()) {
    const auto comma = header.find(',');
    std::string_view candidate = trim(header.substr(0, comma));
    if (candidate.starts_with("W/")) candidate.remove_prefix(2);
    if (candidate == "*" || candidate == etag) return true;
    if (comma == std::string_view::npos) break;
    header.remove_prefix(comma + 1);
  }
  return false;
}

void serve_asset(const httplib::Request& request, httplib::Response& response) {
  const std::optional<DashboardAsset> asset = dashboard_asset(request.path);
  if (!asset) {
    reply_error(response, 404, "no such file");
    return;
  }
  response.set_header("ETag", std::string(asset->etag));
  response.set_header("Cache-Control", "no-cache");
  response.set_header("X-Content-Type-Options", "nosniff");
  response.set_header("Referrer-Policy", "no-referrer");
  if (asset->content_type.starts_with("text/html")) {
    response.set_header("Content-Security-Policy", kContentSecurityPolicy);
  }
  if (etag_matches(request.get_header_value("If-None-Match"), asset->etag)) {
    response.status = 304;
    return;
  }
  response.set_content(asset->bytes.data(), asset->bytes.size(), std::string(asset->content_type));
}

}  // namespace

void register_dashboard_routes(HttpServer& server) {
  for (const char* pattern : {"/", "/index.html", "/assets/.+"}) {
    server.get(pattern, serve_asset, Access::open);
  }
}

}  // namespace gpumeter::net
