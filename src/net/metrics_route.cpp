// SPDX-License-Identifier: MIT
#include "net/metrics_route.h"

#include <memory>

#include "exposition/cache.h"
#include "exposition/parts.h"
#include "exposition/prometheus_text.h"
#include "net/response.h"

namespace gpumeter::net {
namespace {

void append_driver_metrics(fmt::memory_buffer& out, const exposition::Labels& host,
                           const DriverStatus& status) {
  exposition::Family(out, "gpumeter_driver_up", exposition::MetricType::gauge,
                     "1 when the GPU driver answers, 0 while the daemon waits for it to load")
      .sample(host, status.up ? 1 : 0);
  exposition::Family(out, "gpumeter_driver_open_failures_total", exposition::MetricType::counter,
                     "Tries to open the GPU driver that failed since the daemon started")
      .sample(host, static_cast<double>(status.failed_opens));
}

}  // namespace

void register_metrics_route(HttpServer& server, const Sampler& sampler,
                            exposition::MetricsOptions options, MetricsExtras extras) {
  auto cache = std::make_shared<exposition::MetricsCache>(sampler, options);
  server.get("/metrics", [cache, &server, extras = std::move(extras)](const httplib::Request&,
                                                                      httplib::Response& response) {
    const std::shared_ptr<const exposition::RenderedMetrics> rendered = cache->current();
    if (!rendered) {
      reply_error(response, 503, "no snapshot yet: the sampler has not finished its first round");
      return;
    }
    // The response counts and the process's own figures change with every request, so they
    // are not part of the cached text.
    fmt::memory_buffer counts;
    const exposition::Labels host = exposition::host_labels(rendered->host);
    exposition::append_http_metrics(counts, host, server.requests_by_status());
    if (extras.driver) append_driver_metrics(counts, host, extras.driver());
    if (extras.self) exposition::append_self_metrics(counts, host, extras.self());
    if (extras.usage_totals) {
      if (const auto totals = extras.usage_totals()) {
        exposition::append_usage_totals(counts, host, *totals);
      }
    }
    if (extras.quotas != nullptr) exposition::append_quota_metrics(counts, host, *extras.quotas);
    response.body.reserve(rendered->text.size() + counts.size());
    response.body.assign(rendered->text).append(counts.data(), counts.size());
    response.set_header("Content-Type", exposition::kExpositionContentType);
  });
}

}  // namespace gpumeter::net
