// SPDX-License-Identifier: MIT
#include "view/accounting_ledger.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace gpumeter::view {
namespace {

std::optional<TimeUs> oldest_record_start(const Snapshot& snapshot) {
  std::optional<TimeUs> oldest;
  for (const Device& device : snapshot.gpus.devices) {
    if (!device.accounting || !device.accounting->records) continue;
    for (const AccountingRecord& record : *device.accounting->records) {
      oldest = std::min(oldest.value_or(record.start_time_us), record.start_time_us);
    }
  }
  return oldest;
}

}  // namespace

std::expected<LedgerProcesses, Error> LedgerProcesses::read(store::Store& store,
                                                            const Snapshot& snapshot) {
  const std::optional<TimeUs> oldest = oldest_record_start(snapshot);
  if (!oldest) return LedgerProcesses({});
  auto rows = store::ledger(store, {.since_us = *oldest - kStartTimeToleranceUs,
                                    .until_us = std::numeric_limits<TimeUs>::max()});
  if (!rows) return std::unexpected(std::move(rows.error()));
  return LedgerProcesses(std::move(*rows));
}

std::optional<KnownProcess> LedgerProcesses::find(const Device& device,
                                                  const AccountingRecord& record) const {
  const store::LedgerRow* best = nullptr;
  TimeUs best_distance = kStartTimeToleranceUs + 1;
  for (const store::LedgerRow& row : rows_) {
    const store::ProcessIdentity& p = row.process;
    if (p.pid != record.pid || p.start_time_us == 0) continue;
    if (!device.identity.uuid || p.gpu_uuid != *device.identity.uuid) continue;
    const TimeUs distance = std::llabs(p.start_time_us - record.start_time_us);
    if (distance < best_distance) {
      best = &row;
      best_distance = distance;
    }
  }
  if (best == nullptr) return std::nullopt;
  return KnownProcess{best->process.user, best->process.command};
}

}  // namespace gpumeter::view
