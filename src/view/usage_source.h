// SPDX-License-Identifier: MIT
// Where a usage report's figures come from: one machine's history database, or a fleet's
// Prometheus server (its ledger counters, cli/report_prometheus.h). Both answer the same
// store::UsageQuery with the same rows, so that quotas, tables, CSV, JSON and charts are one
// code for both.
#pragma once

#include <expected>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "store/store.h"
#include "store/usage.h"

namespace gpumeter::view {

using UsageQueryFunction =
    std::function<std::expected<std::vector<store::UsageRow>, Error>(const store::UsageQuery&)>;

struct UsageSource {
  std::string name;  // the database's path, or "Prometheus at <URL>"
  UsageQueryFunction usage;
  // Per-process figures (distinct processes, peak memory) and vGPU VMs exist only in a
  // machine's own history.
  store::Store* store = nullptr;
};

// `store` as a source; it must outlive the source.
UsageSource store_usage_source(store::Store& store);

}  // namespace gpumeter::view
