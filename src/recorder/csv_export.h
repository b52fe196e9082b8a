// SPDX-License-Identifier: MIT
// `gpumeter export csv`: the daily CSV rows again, from the store's per-minute (or per-hour)
// process detail instead of the daemon's intervals, through the same CsvIntervals, so that a
// period gives the same rows both ways where the resolutions agree (docs/daemon.md).
#pragma once

#include <map>
#include <span>
#include <vector>

#include "recorder/csv_rows.h"
#include "store/history.h"

namespace gpumeter::recorder {

// The rows of `detail` summed over CSV intervals of `interval_us` (a multiple of the detail's
// bucket), each process named by its ledger row in `ledger` (by id; detail of a row not
// there is skipped). Precondition: interval_us > 0.
std::vector<CsvRow> csv_rows(std::span<const store::ProcessDetailRow> detail,
                             const std::map<std::int64_t, store::LedgerRow>& ledger,
                             TimeUs interval_us);

}  // namespace gpumeter::recorder
