// SPDX-License-Identifier: MIT
// GET /api/v1/usage: who used how many GPU-hours, the `gpumeter report --format json`
// document (schemas/report.schema.json) from the daemon's history database, or on the master
// from the fleet's Prometheus (the ledger counters), with each user's quota standing when the
// server was given --quota FILE.
//
// Parameters: by=user,gpu,process,container,host (default user), bucket=hour|day|month,
// since (default the start of this month), until (default now), user, host (filters).
#pragma once

#include <functional>
#include <optional>

#include "net/http_server.h"
#include "net/store_pool.h"
#include "view/quota.h"
#include "view/usage_source.h"

namespace gpumeter::net {

struct UsageSources {
  StorePool* store = nullptr;  // null: the daemon keeps no history (404)
  // Instead of the store: the fleet's usage (`gpumeter master --prometheus`); a failing
  // source answers 502, a grouping it cannot give (gpu, process) 400.
  std::optional<view::UsageSource> fleet;
  const view::QuotaFile* quotas = nullptr;  // null: no quota file
  std::function<TimeUs()> now_us;           // the wall clock
};

// Registers the route (token access). 400 for a bad parameter, 404 without a history
// database or fleet source, 500 when the database cannot be read, 502 when the fleet's
// Prometheus cannot.
void add_usage_route(HttpServer& server, UsageSources sources);

}  // namespace gpumeter::net
