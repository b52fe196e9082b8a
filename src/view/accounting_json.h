// SPDX-License-Identifier: MIT
// The accounting document: every GPU's accounting mode and the records in its driver buffer,
// as `gpumeter accounting show --json` prints it and GET /api/v1/accounting serves it
// (schemas/accounting.schema.json, docs/accounting.md). Also the short per-GPU `accounting`
// object of `list --json`.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/model.h"
#include "view/json.h"

namespace gpumeter::view {

inline constexpr int kAccountingSchemaVersion = 1;

// Who a record's process was, as gpumeter knows it.
struct KnownProcess {
  std::optional<std::string> user;
  std::optional<std::string> command;
};

// Finds who ran a record's process on a GPU; nullopt when gpumeter does not know it.
using KnownProcessLookup =
    std::function<std::optional<KnownProcess>(const Device& device, const AccountingRecord&)>;

// A running record's process as the snapshot's host view has it, when the start times agree
// within kStartTimeToleranceUs.
std::optional<KnownProcess> known_from_snapshot(const Snapshot& snapshot,
                                                const AccountingRecord& record);

// How far the driver's start time of a process may lie from the host's (procfs) and still be
// taken for the same process: the driver stamps the start when the process opens the GPU.
inline constexpr TimeUs kStartTimeToleranceUs = 5'000'000;

// The document for every GPU of the snapshot. `lookup` may be empty (no user or command).
Json accounting_json(const Snapshot& snapshot, const KnownProcessLookup& lookup);

// {"enabled", "buffer_size", "records"}: the mode, the buffer's capacity and how many records
// it holds; null members while disabled. Null when the mode cannot be read (with the reason
// under `unavailable["accounting"]`).
void put_accounting_summary(Json& gpu, Json& unavailable, const Maybe<Accounting>& accounting);

}  // namespace gpumeter::view
