// SPDX-License-Identifier: MIT
#include "net/status_routes.h"

#include <memory>
#include <mutex>
#include <string>

#include "net/response.h"
#include "view/gpu_status_json.h"
#include "view/list_json.h"

namespace gpumeter::net {
namespace {

// The body of the latest snapshot, rendered once per sampler round however many requests ask:
// clients poll far more often than the sampler publishes.
class RenderedSnapshot {
 public:
  using Render = view::Json (*)(const Snapshot&);
  explicit RenderedSnapshot(Render render) : render_(render) {}

  std::shared_ptr<const std::string> body(const std::shared_ptr<const Snapshot>& snapshot) {
    const std::lock_guard lock(mutex_);
    if (snapshot != snapshot_) {
      body_ = std::make_shared<const std::string>(view::dump_json(render_(*snapshot), true));
      snapshot_ = snapshot;
    }
    return body_;
  }

 private:
  Render render_;
  std::mutex mutex_;
  std::shared_ptr<const Snapshot> snapshot_;
  std::shared_ptr<const std::string> body_;
};

HttpServer::Handler snapshot_route(const Sampler& sampler, RenderedSnapshot::Render render) {
  auto rendered = std::make_shared<RenderedSnapshot>(render);
  return [&sampler, rendered](const httplib::Request&, httplib::Response& response) {
    const auto snapshot = sampler.snapshot();
    if (!snapshot) return reply_error(response, 503, "no sample yet: the sampler is starting");
    response.set_content(*rendered->body(snapshot), kJsonType);
  };
}

}  // namespace

void add_status_routes(HttpServer& server, const Sampler& sampler) {
  server.get("/api/v1/status", snapshot_route(sampler, view::list_json));
  server.get("/gpu_status", snapshot_route(sampler, view::gpu_status_json));
}

}  // namespace gpumeter::net
