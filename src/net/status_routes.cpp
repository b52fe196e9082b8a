#include "net/status_routes.h"

#include "net/response.h"
#include "view/gpu_status_json.h"
#include "view/list_json.h"

namespace gpumeter::net {
namespace {

// A route that renders the snapshot with `render`.
template <class Render>
HttpServer::Handler snapshot_route(const Sampler& sampler, Render render) {
  return [&sampler, render](const httplib::Request&, httplib::Response& response) {
    const auto snapshot = sampler.snapshot();
    if (!snapshot) return reply_error(response, 503, "no sample yet: the sampler is starting");
    reply_json(response, render(*snapshot));
  };
}

}  // namespace

void add_status_routes(HttpServer& server, const Sampler& sampler) {
  server.get("/api/v1/status", snapshot_route(sampler, view::list_json));
  server.get("/gpu_status", snapshot_route(sampler, view::gpu_status_json));
}

}  // namespace gpumeter::net
