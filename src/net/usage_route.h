// SPDX-License-Identifier: MIT
// GET /api/v1/usage: who used how many GPU-hours, the `gpumeter report --format json`
// document (schemas/report.schema.json) from the daemon's history database, with each
// user's quota standing when the daemon was given --quota FILE.
//
// Parameters: by=user,gpu,process,container,host (default user), bucket=hour|day|month,
// since (default the start of this month), until (default now), user, host (filters).
#pragma once

#include <functional>

#include "net/http_server.h"
#include "net/store_pool.h"
#include "view/quota.h"

namespace gpumeter::net {

struct UsageSources {
  StorePool* store = nullptr;               // null: the daemon keeps no history (404)
  const view::QuotaFile* quotas = nullptr;  // null: no quota file
  std::function<TimeUs()> now_us;           // the wall clock
};

// Registers the route (token access). 400 for a bad parameter, 404 without a history
// database, 500 when it cannot be read.
void add_usage_route(HttpServer& server, UsageSources sources);

}  // namespace gpumeter::net
