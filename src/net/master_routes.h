// The master's own routes on its HTTP server (docs/master.md): GET /api/v1/fleet, the fleet
// document, behind the server's token like every data route.
#pragma once

#include <functional>

#include "net/http_server.h"
#include "net/master_node.h"

namespace gpumeter::net {

// Registers GET /api/v1/fleet: 200 with `fleet()` as application/json, never cached (the
// document changes every round). `fleet` runs on the server's threads, several at once.
void add_fleet_route(HttpServer& server, std::function<Json()> fleet);

}  // namespace gpumeter::net
