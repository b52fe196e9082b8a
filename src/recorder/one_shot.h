// SPDX-License-Identifier: MIT
// `gpumeter record --once`: one reading of the GPUs, turned into the store's records without a
// daemon. One reading cannot measure an interval by itself, so it leans on the previous record
// (the store's recorded_until and each GPU's energy counter then) and on the driver's buffer of
// per-process utilisation samples. What it records (docs/daemon.md, "Recording without a
// daemon"):
//  - each GPU's description and its readings now;
//  - for each process on a GPU now, one interval from the previous record (or from the
//    process's start, if later) to now: held the whole time; SM busy-seconds from the samples
//    the driver still buffers since the previous record, exact over the span they cover (up to
//    one driver period before now) and extended at that span's average over the rest of the
//    held time; peak memory = memory now; energy = the GPU's counter rise since the previous
//    record, shared in proportion to SM busy-seconds.
// Processes that started and ended between two records are not seen. Pure: no I/O, no clock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/source.h"
#include "recorder/csv_rows.h"
#include "store/records.h"

namespace gpumeter::recorder {

// What the previous record left in the store.
struct PreviousRecord {
  TimeUs time_us = 0;                           // recorded_until
  std::map<std::string, double> energy_joules;  // each GPU's energy counter then, by uuid
};

struct OneShotReading {
  Snapshot snapshot;  // the GPUs and their processes now (snapshot.time_us is now)
  // Per device index: the per-process samples the driver returned for lastSeenTimeStamp = the
  // previous record's time, or why it could not.
  std::map<std::uint32_t, Maybe<std::vector<PidGpuSample>>> drains;
};

struct OneShotRecords {
  std::vector<store::DeviceRecord> devices;
  std::vector<store::DeviceSampleRecord> samples;
  std::vector<store::ProcessInterval> intervals;
  std::vector<CsvRow> csv;  // one per interval: its SM busy time over the time since `previous`
};

// The longest time since the previous record that is still attributed to the processes present
// now; a longer gap (the machine was off, the timer stopped) records the readings only.
inline constexpr TimeUs kLongestOneShotIntervalUs = 3'600'000'000;

// The records of one reading. Without a previous record, or after a longer gap, there is no
// interval to attribute: only the GPUs' records.
OneShotRecords one_shot_records(const OneShotReading& reading,
                                const std::optional<PreviousRecord>& previous);

}  // namespace gpumeter::recorder
