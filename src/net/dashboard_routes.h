// SPDX-License-Identifier: MIT
// The web dashboard's routes: GET / (the page) and /assets/... (its scripts, styles and chart
// library), served from the files built into the binary (net/dashboard_assets.h). They are
// public (no token): they hold no data; the page asks for the token the API needs.
#pragma once

#include "net/http_server.h"

namespace gpumeter::net {

// Registers "/", "/index.html" and "/assets/..." on `server` (before server.start()). Each
// answer carries the file's ETag and "Cache-Control: no-cache" (browsers revalidate, and a
// matching If-None-Match gets 304 without a body), and the page a Content-Security-Policy
// that lets it load only its own files and call only its own server.
void register_dashboard_routes(HttpServer& server);

}  // namespace gpumeter::net
