// SPDX-License-Identifier: MIT
// Rolling vgpu_minutes up into vgpu_hours (docs/vgpu.md, "History"): part of downsample().
// Internal to src/store.
#pragma once

#include <expected>

#include "core/error.h"
#include "core/model.h"
#include "store/maintenance.h"
#include "store/sqlite.h"

namespace gpumeter::store {

// Rolls every complete hour (one that ends at or before now_us) of vgpu_minutes not yet rolled
// up into vgpu_hours, a day of minutes per transaction, and moves the meta watermark
// kVgpuHoursUntil in the same transaction. An hour row holds the sums of its minutes' seconds
// and SM busy seconds, their highest framebuffer, and the newest instance uuid and type. Adds
// to report.batches and report.vgpu_hours_written; stops (complete = false) when the batches
// reach limits.max_batches. Errors: io from SQLite (the batch in progress is rolled back).
std::expected<void, Error> roll_up_vgpu_hours(sqlite::Connection& connection, TimeUs now_us,
                                              const MaintenanceLimits& limits,
                                              MaintenanceReport& report);

}  // namespace gpumeter::store
