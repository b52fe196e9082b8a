// SPDX-License-Identifier: MIT
#include "recorder/csv_export.h"

namespace gpumeter::recorder {

std::vector<CsvRow> csv_rows(std::span<const store::ProcessDetailRow> detail,
                             const std::map<std::int64_t, store::LedgerRow>& ledger,
                             TimeUs interval_us) {
  CsvIntervals intervals(interval_us);
  for (const store::ProcessDetailRow& row : detail) {
    const auto process = ledger.find(row.ledger_id);
    if (process == ledger.end()) continue;
    const store::ProcessIdentity& who = process->second.process;
    intervals.add({.begin_us = row.bucket_us,
                   .user = csv_user(who.user, who.uid),
                   .pid = who.pid,
                   .start_time_us = who.start_time_us,
                   .gpu = who.gpu_index,
                   .held_seconds = row.held_seconds,
                   .sm_busy_seconds = row.sm_busy_seconds,
                   .sm_unknown_seconds = row.sm_unknown_seconds});
  }
  return intervals.take_all();
}

}  // namespace gpumeter::recorder
