// SPDX-License-Identifier: MIT
#include "net/vgpu_route.h"

#include "net/response.h"
#include "view/vgpu_json.h"

namespace gpumeter::net {

void add_vgpu_route(HttpServer& server, const Sampler& sampler) {
  server.get("/api/v1/vgpu", [&sampler](const httplib::Request&, httplib::Response& response) {
    const auto snapshot = sampler.snapshot();
    if (!snapshot) return reply_error(response, 503, "no sample yet: the sampler is starting");
    response.set_content(view::dump_json(view::vgpu_json(*snapshot), true), kJsonType);
  });
}

}  // namespace gpumeter::net
