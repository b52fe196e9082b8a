// SPDX-License-Identifier: MIT
// Writing a batch of records in one transaction: all of it is stored, or (on any error, a
// full disk included) none of it.
#pragma once

#include <cstddef>
#include <expected>
#include <optional>
#include <vector>

#include "core/error.h"
#include "store/accounted.h"
#include "store/mig_memory.h"
#include "store/records.h"
#include "store/store.h"
#include "store/task_record.h"
#include "store/vgpu_use.h"

namespace gpumeter::store {

struct Batch {
  std::vector<DeviceRecord> devices;
  std::vector<DeviceSampleRecord> device_samples;
  std::vector<ProcessInterval> process_intervals;
  std::vector<TaskRecord> tasks;
  std::vector<AccountedProcess> accounted;
  std::vector<VgpuUseRecord> vgpu_use;
  std::vector<MigMemoryRecord> mig_memory;
  // How far the recorder has recorded process intervals on this host (the end of its last
  // interval), stored with the batch so that the two can never disagree; see recorded_until()
  // in store/history.h. A lower value than the one stored leaves it.
  std::optional<TimeUs> recorded_until_us;

  std::size_t rows() const noexcept {
    return devices.size() + device_samples.size() + process_intervals.size() + tasks.size() +
           accounted.size() + vgpu_use.size() + mig_memory.size();
  }
  bool empty() const noexcept { return rows() == 0 && !recorded_until_us; }
};

struct WriteReport {
  std::size_t device_samples = 0;  // stored
  // Device samples older than the raw tier's retention horizon when they arrived: not stored,
  // since their minute can no longer be aggregated again.
  std::size_t late_device_samples = 0;
  std::size_t process_intervals = 0;
  std::size_t tasks = 0;
};

// Stores the batch in one transaction, under the store's host:
//  - a device row per uuid (created on first sight; descriptions and first/last seen updated);
//  - device samples (a sample at the same time on the same GPU replaces the one stored); a
//    sample for a minute already aggregated makes maintenance aggregate that minute again;
//  - per interval, the ledger row of its process on its GPU (created, or continued: figures
//    added, peak maxed, last seen moved forward, final once final) and its per-minute and
//    per-hour detail;
//  - accounting records of exited processes, joined to their ledger rows or making new ones
//    (store/accounted.h);
//  - task results (the same task stored again replaces itself);
//  - vGPU use, added to its VM's row of the minute it begins in (peak framebuffer maxed);
//  - MIG devices' memory readings, counted in their minute and hour (store/mig_memory.h);
//  - the recorder's progress, raised to recorded_until_us.
// Errors: invalid_input when a record fails validate() (nothing is written); io when SQLite
// fails, e.g. SQLITE_FULL on a full disk or past the size cap (rolled back, nothing written).
std::expected<WriteReport, Error> write(Store& store, const Batch& batch);

}  // namespace gpumeter::store
