// SPDX-License-Identifier: MIT
// Reading back what the store keeps, row by row: GPUs, their series at a chosen resolution,
// ledger rows, per-process detail and task results. For exporters (CSV files), plots and
// tests; store/usage.h answers the grouped questions of reports. Windows are [since, until),
// µs since the Unix epoch.
#pragma once

#include <algorithm>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "store/records.h"
#include "store/store.h"
#include "store/task_record.h"

namespace gpumeter::store {

struct DeviceRow {
  std::string host;
  DeviceRecord device;  // seen_us is the last time it was seen
  TimeUs first_seen_us = 0;
};

// Every GPU of every host, by host, then index.
std::expected<std::vector<DeviceRow>, Error> devices(Store& store);

enum class Resolution : std::uint8_t {
  samples,  // full resolution (kept 48 hours by default)
  minutes,  // 1-minute aggregates (90 days)
  hours,    // 1-hour aggregates (forever)
};

struct SeriesQuery {
  Resolution resolution = Resolution::minutes;
  TimeUs since_us = 0;
  TimeUs until_us = 0;
  std::optional<std::string> uuid;  // one GPU, or every GPU of the store's host
};

// The rows whose time (sample time or bucket start) lies in the window, by GPU then time.
std::expected<std::vector<DeviceSeriesRow>, Error> device_series(Store& store,
                                                                 const SeriesQuery& query);

// One ledger row: a process's lifetime on one GPU.
struct LedgerRow {
  std::int64_t id = 0;
  std::string host;
  ProcessIdentity process;
  TimeUs first_seen_us = 0;
  TimeUs last_seen_us = 0;
  double gpu_seconds = 0;      // seconds it held memory on the GPU
  double sm_busy_seconds = 0;  // Σ SM percent / 100 × seconds, over the known part (below)
  std::uint64_t peak_memory_bytes = 0;
  double energy_joules = 0;  // its energy share, over the known part
  bool final = false;
  // Held seconds whose SM use (and energy share) the driver did not report, and why ("mig").
  double sm_unknown_seconds = 0;
  std::optional<std::string> sm_unknown_reason;

  double sm_known_seconds() const { return std::max(gpu_seconds - sm_unknown_seconds, 0.0); }
  // Whether anything of its SM use is known: false for a process only ever on a GPU in MIG
  // mode, whose sm_busy_seconds and energy_joules are then unknown, not 0.
  bool sm_known() const { return sm_unknown_seconds <= 0 || sm_known_seconds() > 1e-6; }

  // Average SM use while it held the GPU, percent, over the held time whose SM use is known;
  // absent when it never held it or none of it is known.
  std::optional<double> sm_percent_while_held() const {
    if (sm_known_seconds() <= 0 || !sm_known()) return std::nullopt;
    return 100.0 * sm_busy_seconds / sm_known_seconds();
  }
};

struct LedgerQuery {
  TimeUs since_us = 0;
  TimeUs until_us = 0;
  std::optional<std::string> user;  // only this user's rows
};

// Ledger rows whose lifetime [first seen, last seen] touches the window, by first seen.
std::expected<std::vector<LedgerRow>, Error> ledger(Store& store, const LedgerQuery& query);

// One process's use of one GPU within one minute or hour.
struct ProcessDetailRow {
  std::int64_t ledger_id = 0;
  TimeUs bucket_us = 0;
  double held_seconds = 0;
  double sm_busy_seconds = 0;  // over the known part: held_seconds - sm_unknown_seconds
  std::uint64_t peak_memory_bytes = 0;
  double energy_joules = 0;       // likewise
  double sm_unknown_seconds = 0;  // held time whose SM use the driver did not report
};

// The per-minute (resolution minutes) or per-hour (hours) detail of every process in the
// window, by bucket then ledger row. Errors: invalid_input for Resolution::samples.
std::expected<std::vector<ProcessDetailRow>, Error> process_detail(Store& store,
                                                                   Resolution resolution,
                                                                   TimeUs since_us,
                                                                   TimeUs until_us);

struct StoredTask {
  std::string host;
  TaskRecord task;
};

struct TaskQuery {
  TimeUs since_us = 0;  // tasks that ended in [since, until)
  TimeUs until_us = 0;
  std::optional<std::string> user;
};

// Tasks by end time. Errors: invalid_input when a row's GPU figures are not valid JSON.
std::expected<std::vector<StoredTask>, Error> tasks(Store& store, const TaskQuery& query);

// How far the recorder of the store's host has recorded process intervals
// (Batch::recorded_until_us); absent before its first record, or when this host never wrote.
// Errors: io from SQLite.
std::expected<std::optional<TimeUs>, Error> recorded_until(Store& store);

}  // namespace gpumeter::store
