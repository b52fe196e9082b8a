// SPDX-License-Identifier: MIT
// GET /api/v1/history: one gauge of one GPU over a window, in buckets, columnar for charts
// (docs/http.md). The recent part comes from the sampler's series in memory, the older part
// (and the temperature, which the series do not keep) from the history database.
#pragma once

#include <chrono>
#include <functional>

#include "core/sampler.h"
#include "net/http_server.h"
#include "net/store_pool.h"

namespace gpumeter::net {

struct HistorySources {
  const Sampler& sampler;
  StorePool* store = nullptr;                // null: the daemon keeps no history database
  std::chrono::milliseconds interval{1000};  // the sampler's
  std::function<TimeUs()> now_us;            // the wall clock
};

// Registers the route (token access). 503 before the first snapshot; 400 for a bad
// parameter or a GPU the snapshot does not have; 500 when the database cannot be read.
void add_history_route(HttpServer& server, HistorySources sources);

}  // namespace gpumeter::net
