// SPDX-License-Identifier: MIT
// The master's own routes on its HTTP server (docs/master.md): GET /api/v1/fleet, the fleet
// document, behind the server's token like every data route.
#pragma once

#include <functional>
#include <string>

#include "master/node.h"
#include "net/http_server.h"

namespace gpumeter::master {

// Registers GET /api/v1/fleet: 200 with `fleet()` (the fleet document as text, fleet_text())
// as application/json, never cached (the document changes every round). `fleet` runs on the
// server's threads, several at once.
void add_fleet_route(net::HttpServer& server, std::function<std::string()> fleet);

}  // namespace gpumeter::master
