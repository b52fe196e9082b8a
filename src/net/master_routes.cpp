#include "net/master_routes.h"

#include <utility>

#include "net/response.h"

namespace gpumeter::net {

void add_fleet_route(HttpServer& server, std::function<Json()> fleet) {
  server.get("/api/v1/fleet", [fleet = std::move(fleet)](const httplib::Request&,
                                                         httplib::Response& response) {
    // Agents' command lines need not be UTF-8: replacement characters, not an exception.
    response.set_content(fleet().dump(-1, ' ', false, Json::error_handler_t::replace), kJsonType);
    response.set_header("Cache-Control", "no-store");
  });
}

}  // namespace gpumeter::net
