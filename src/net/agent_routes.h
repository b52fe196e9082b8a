// SPDX-License-Identifier: MIT
// The routes of the agent inside `gpumeter daemon` (docs/http.md): /healthz,
// /api/v1/status, /gpu_status, /api/v1/history, /api/v1/usage, /api/v1/tasks, /api/v1/vgpu
// and /api/v1/vgpu/series. They read the sampler's snapshot and series, the history database
// through read-only connections, and the recent task results; none calls a GPU source.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "core/sampler.h"
#include "net/http_server.h"
#include "net/store_pool.h"
#include "task/recent_results.h"
#include "view/quota.h"

namespace gpumeter::net {

struct AgentSources {
  const Sampler& sampler;
  std::chrono::milliseconds interval{1000};    // the sampler's
  StorePool* store = nullptr;                  // null: no history database
  const view::QuotaFile* quotas = nullptr;     // null: no --quota
  const task::RecentResults* tasks = nullptr;  // null: no task route
  std::function<TimeUs()> now_us;              // the wall clock
  // The last error opening the driver while the daemon waits for it; null: never waiting
  // (net/health_route.h).
  std::function<std::optional<std::string>()> waiting_for_driver;
};

// Registers every route of the agent on `server`; the sources must outlive it.
void add_agent_routes(HttpServer& server, const AgentSources& sources);

}  // namespace gpumeter::net
