#include "net/metrics_route.h"

#include <memory>

#include "net/metrics_cache.h"
#include "net/metrics_parts.h"
#include "net/prometheus_text.h"
#include "net/response.h"

namespace gpumeter::net {

void register_metrics_route(HttpServer& server, const Sampler& sampler, MetricsOptions options) {
  auto cache = std::make_shared<MetricsCache>(sampler, options);
  server.get("/metrics", [cache, &server](const httplib::Request&, httplib::Response& response) {
    const std::shared_ptr<const RenderedMetrics> rendered = cache->current();
    if (!rendered) {
      reply_error(response, 503, "no snapshot yet: the sampler has not finished its first round");
      return;
    }
    // The response counts change with every request, so they are not part of the cached text.
    fmt::memory_buffer counts;
    append_http_metrics(counts, host_labels(rendered->host), server.requests_by_status());
    response.body.reserve(rendered->text.size() + counts.size());
    response.body.assign(rendered->text).append(counts.data(), counts.size());
    response.set_header("Content-Type", kExpositionContentType);
  });
}

}  // namespace gpumeter::net
