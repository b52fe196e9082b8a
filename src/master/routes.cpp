// SPDX-License-Identifier: MIT
#include "master/routes.h"

#include <utility>

#include "net/response.h"

namespace gpumeter::master {

void add_fleet_route(net::HttpServer& server, std::function<std::string()> fleet) {
  server.get("/api/v1/fleet",
             [fleet = std::move(fleet)](const httplib::Request&, httplib::Response& response) {
               response.set_content(fleet(), net::kJsonType);
               response.set_header("Cache-Control", "no-store");
             });
}

}  // namespace gpumeter::master
