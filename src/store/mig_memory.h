// SPDX-License-Identifier: MIT
// Memory use of MIG devices in the history (docs/mig.md, "History", and docs/store.md): per
// MIG device (keyed by its GPU and its MIG-... uuid), the min, mean and max of the memory its
// processes hold, per minute and per hour, from every sampler round; beside it (schema step 9)
// the min, mean and max of each GPM figure of its GPU instance, over the readings that had it.
// Kept as long as the GPU's own minutes and hours (Retention::device_minutes_us,
// device_hours_us).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/metrics.h"
#include "core/model.h"
#include "store/history.h"
#include "store/store.h"

namespace gpumeter::store {

// One reading of one MIG device's memory.
struct MigMemoryRecord {
  std::string gpu_uuid;
  std::uint32_t gpu_index = 0;
  std::string mig_uuid;  // "MIG-..."
  std::uint32_t gpu_instance_id = 0;
  std::uint32_t compute_instance_id = 0;
  std::optional<std::string> profile;  // "1g.10gb"
  TimeUs time_us = 0;
  double memory_used_bytes = 0;
  std::optional<double> memory_total_bytes;
  // GPM figures of its GPU instance, in kGpmMetrics order; absent before Hopper and on the
  // first reading (no GPM window yet).
  std::array<std::optional<double>, kGpmMetrics.size()> gpm;
};

// Checks: non-empty GPU and MIG uuids, finite non-negative memory and GPM figures.
// Errors: invalid_input naming the field.
std::expected<void, Error> validate(const MigMemoryRecord& record);

// The records of a GPU's MIG devices read at `time_us`: none for a GPU without a uuid or not in
// MIG mode, nor for a MIG device without a uuid or a memory reading (nothing is made up); a
// record's GPM figures are those the MIG device has.
std::vector<MigMemoryRecord> mig_memory_records(const Device& device, TimeUs time_us);

// A MIG device's memory over one minute or hour.
struct MigMemoryRow {
  std::string gpu_uuid;
  std::string mig_uuid;
  std::uint32_t gpu_instance_id = 0;
  std::uint32_t compute_instance_id = 0;
  std::optional<std::string> profile;
  TimeUs bucket_us = 0;
  std::int64_t samples = 0;
  GaugeStats memory_used_bytes;  // min, mean and max of the bucket's readings
  std::optional<double> memory_total_bytes;
  // Per GPM figure (kGpmMetrics order): the min, mean and max over the readings that had it,
  // all absent when none had it; and how many had it.
  std::array<GaugeStats, kGpmMetrics.size()> gpm;
  std::array<std::int64_t, kGpmMetrics.size()> gpm_samples{};
};

// The position of `metric` in kGpmMetrics, or nullopt for a metric that is not a GPM figure.
std::optional<std::size_t> gpm_position(DeviceMetric metric);

struct MigMemoryQuery {
  Resolution resolution = Resolution::minutes;  // minutes or hours
  TimeUs since_us = 0;                          // buckets that start in [since, until)
  TimeUs until_us = 0;
  std::optional<std::string> mig_uuid;  // only this MIG device
};

// By GPU, MIG uuid, then time. Errors: invalid_input for Resolution::samples (MIG memory is
// kept per minute and per hour only); io from SQLite.
std::expected<std::vector<MigMemoryRow>, Error> mig_memory_series(Store& store,
                                                                  const MigMemoryQuery& query);

}  // namespace gpumeter::store
