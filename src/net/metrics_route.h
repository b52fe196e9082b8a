// SPDX-License-Identifier: MIT
// GET /metrics: the Prometheus exposition of a running sampler (docs/metrics.md), rendered
// once per sampling round for every scraper, with the HTTP server's own response counts.
#pragma once

#include <functional>
#include <memory>

#include "core/driver_wait.h"
#include "core/sampler.h"
#include "core/self_usage.h"
#include "core/usage_totals.h"
#include "exposition/metrics.h"
#include "net/http_server.h"
#include "view/quota.h"

namespace gpumeter::net {

// Registers GET /metrics on `server` (a token route: a configured token is required). 200
// with the text format (exposition::kExpositionContentType); 503 with a JSON error before the
// sampler's first snapshot. The sampler must outlive the server.
//
// What the daemon adds, read afresh for every answer (any thread), each optional:
struct MetricsExtras {
  // gpumeter_driver_up (0 while the daemon waits for the driver) and
  // gpumeter_driver_open_failures_total.
  std::function<DriverStatus()> driver;
  // The process's own cost: process_* and gpumeter_heap_*, gpumeter_sqlite_memory_bytes.
  std::function<SelfUsage()> self;
  // The history's running totals per user and container (gpumeter_user_*_total,
  // gpumeter_container_*_total); null while there are none to export.
  std::function<std::shared_ptr<const UsageTotals>()> usage_totals;
  // The daemon's --quota file (gpumeter_quota_*), which must outlive the server; null: none.
  const view::QuotaFile* quotas = nullptr;
};
void register_metrics_route(HttpServer& server, const Sampler& sampler,
                            exposition::MetricsOptions options, MetricsExtras extras = {});

}  // namespace gpumeter::net
