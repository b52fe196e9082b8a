// SPDX-License-Identifier: MIT
// Who ran the processes of accounting records, from the history's ledger: a record carries
// only a pid and a start time, and the driver keeps it long after the process has gone.
#pragma once

#include <expected>
#include <optional>
#include <vector>

#include "core/error.h"
#include "store/history.h"
#include "store/store.h"
#include "view/accounting_json.h"

namespace gpumeter::view {

class LedgerProcesses {
 public:
  explicit LedgerProcesses(std::vector<store::LedgerRow> rows) : rows_(std::move(rows)) {}

  // The ledger rows that may match a record of the snapshot: those seen since the oldest
  // record's start. Errors: those of store::ledger.
  static std::expected<LedgerProcesses, Error> read(store::Store& store, const Snapshot& snapshot);

  // The row of the same pid on the same GPU whose start time is closest to the record's,
  // within kStartTimeToleranceUs; nullopt when there is none.
  std::optional<KnownProcess> find(const Device& device, const AccountingRecord& record) const;

 private:
  std::vector<store::LedgerRow> rows_;
};

}  // namespace gpumeter::view
