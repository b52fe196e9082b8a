// SPDX-License-Identifier: MIT
#include "net/agent_routes.h"

#include "core/wall_clock.h"
#include "net/accounting_route.h"
#include "net/health_route.h"
#include "net/history_route.h"
#include "net/status_routes.h"
#include "net/tasks_route.h"
#include "net/usage_route.h"
#include "net/vgpu_route.h"
#include "net/vgpu_series_route.h"

namespace gpumeter::net {

void add_agent_routes(HttpServer& server, const AgentSources& sources) {
  const Sampler& sampler = sources.sampler;
  add_health_route(
      server, HealthSource{.last_round_us = [&sampler] { return sampler.stats().last_round_us; },
                           .interval = sources.interval,
                           .now_us = sources.now_us,
                           .waiting_for_driver = sources.waiting_for_driver});
  add_status_routes(server, sampler);
  add_accounting_route(server, AccountingSources{.sampler = sampler, .store = sources.store});
  add_vgpu_route(server, sampler);
  add_history_route(server, HistorySources{.sampler = sampler,
                                           .store = sources.store,
                                           .interval = sources.interval,
                                           .now_us = sources.now_us});
  add_usage_route(
      server,
      UsageSources{.store = sources.store, .quotas = sources.quotas, .now_us = sources.now_us});
  if (sources.tasks != nullptr) {
    add_tasks_route(server, TasksSources{.results = *sources.tasks, .now_us = sources.now_us});
  }
  add_vgpu_series_route(server, sampler, sources.now_us);
}

}  // namespace gpumeter::net
