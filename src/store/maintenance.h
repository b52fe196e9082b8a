// SPDX-License-Identifier: MIT
// Keeping the tiers: aggregating device samples into minutes and minutes into hours, and
// deleting what is older than each table's retention. Work is done in bounded batches, one
// transaction each, so a writer never waits long; a batch interrupted by a crash is rolled back
// and simply done again, and running the same step twice changes nothing (docs/store.md).
#pragma once

#include <cstddef>
#include <expected>
#include <limits>

#include "core/error.h"
#include "core/model.h"
#include "store/store.h"

namespace gpumeter::store {

// How long each table keeps its rows, µs; 0 keeps them forever. The defaults are the documented
// ones. A finer tier must not outlive the tier it is aggregated into.
struct Retention {
  TimeUs device_samples_us = 48LL * 3600 * 1'000'000;    // full resolution: 48 hours
  TimeUs device_minutes_us = 90LL * 86400 * 1'000'000;   // 1-minute aggregates: 90 days
  TimeUs device_hours_us = 0;                            // 1-hour aggregates: forever
  TimeUs process_minutes_us = 30LL * 86400 * 1'000'000;  // per-process minutes: 30 days
  TimeUs process_hours_us = 0;                           // per-process hours: forever
  TimeUs vgpu_minutes_us = 90LL * 86400 * 1'000'000;     // vGPU use per VM and minute: 90 days
  TimeUs vgpu_hours_us = 0;                              // vGPU use per VM and hour: forever
};

// Errors: invalid_input when a retention is negative, or device samples outlive device minutes,
// device minutes outlive device hours, process minutes outlive process hours, or vGPU minutes
// outlive vGPU hours.
std::expected<void, Error> validate(const Retention& retention);

struct MaintenanceLimits {
  std::size_t max_batches = std::numeric_limits<std::size_t>::max();  // transactions per call
};

struct MaintenanceReport {
  std::size_t device_minutes_written = 0;  // aggregate rows written (or written again)
  std::size_t device_hours_written = 0;
  std::size_t rows_deleted = 0;        // over every table
  std::size_t batches = 0;             // transactions committed
  bool complete = true;                // false when max_batches ran out first: call again later
  std::size_t vgpu_hours_written = 0;  // vgpu_hours rows rolled up (or rolled up again)
};

// Aggregates every complete minute (one that ends at or before now_us) of device samples into
// device_minutes, and every hour whose minutes are all aggregated into device_hours; each
// aggregate keeps the number of samples, min, avg and max of each gauge (the hour's avg is the
// mean of all its samples), and the energy the GPU used in the bucket (the energy counter's
// rises between consecutive samples at most 10 minutes apart, credited to the later sample's
// bucket; a counter that went backwards, after a driver reload, credits nothing). Then rolls
// every complete hour of vgpu_minutes up into vgpu_hours (store/vgpu_rollup.h).
// Errors: io from SQLite (the batch in progress is rolled back, earlier batches stay).
std::expected<MaintenanceReport, Error> downsample(Store& store, TimeUs now_us,
                                                   const MaintenanceLimits& limits = {});

// Deletes rows older than each table's retention, at whole hours, and never device samples or
// minutes, nor vGPU minutes, not yet aggregated into the next tier.
// Errors: invalid_input from validate(retention); io from SQLite.
std::expected<MaintenanceReport, Error> prune(Store& store, TimeUs now_us,
                                              const Retention& retention = {},
                                              const MaintenanceLimits& limits = {});

// downsample, then prune, sharing the batch limit.
std::expected<MaintenanceReport, Error> maintain(Store& store, TimeUs now_us,
                                                 const Retention& retention = {},
                                                 const MaintenanceLimits& limits = {});

}  // namespace gpumeter::store
