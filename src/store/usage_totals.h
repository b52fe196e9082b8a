// SPDX-License-Identifier: MIT
// Reads the ledger's running totals (schema step 10, core/usage_totals.h) within bounds, so
// that what /metrics exports stays small however many users and jobs the history has known.
#pragma once

#include <cstddef>
#include <expected>

#include "core/error.h"
#include "core/usage_totals.h"
#include "store/store.h"

namespace gpumeter::store {

struct UsageTotalsBounds {
  std::size_t users = 1000;  // the users seen most recently
  // Containers (and Slurm jobs) are short-lived: those seen within `container_age_us` of
  // `now_us`, at most `containers` of them, the most recent first.
  std::size_t containers = 500;
  TimeUs container_age_us = 24 * kHourUs;
};

// Per user (all containers together) and per container (all users together), each ordered by
// its key. Errors: io from SQLite.
std::expected<UsageTotals, Error> read_usage_totals(Store& store, TimeUs now_us,
                                                    const UsageTotalsBounds& bounds = {});

}  // namespace gpumeter::store
