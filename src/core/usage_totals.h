// SPDX-License-Identifier: MIT
// The history's running totals of what processes used, per user and per container (or Slurm
// job), since the database began: GPU-seconds held, SM busy-seconds, held seconds whose SM use
// the driver did not report, and joules. They only grow, across daemon restarts and pruning,
// which makes them Prometheus counters (docs/metrics.md, "Ledger counters").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/model.h"

namespace gpumeter {

struct UsageTotal {
  std::string key;  // the user ("" when unknown), or the container "runtime:id"
  double gpu_seconds = 0;
  double sm_busy_seconds = 0;
  double sm_unknown_seconds = 0;  // held time without SM figures (MIG)
  double energy_joules = 0;
  TimeUs last_seen_us = 0;  // the latest use counted
};

struct UsageTotals {
  std::vector<UsageTotal> users;       // by user
  std::vector<UsageTotal> containers;  // by container; processes outside any are not listed
};

}  // namespace gpumeter
