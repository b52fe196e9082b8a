// SPDX-License-Identifier: MIT
// What the store's tests share: a database in a temporary directory, times, and record makers.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "store/records.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace gpumeter::store::testing {

inline constexpr TimeUs kSecond = 1'000'000;
inline constexpr TimeUs kMinute = 60 * kSecond;
inline constexpr TimeUs kHour = 60 * kMinute;
inline constexpr TimeUs kDay = 24 * kHour;
// 2026-01-01T00:00:00Z: a Thursday, the start of a month, a day and an hour.
inline constexpr TimeUs kT0 = 1'767'225'600 * kSecond;

inline Store open_store(const std::filesystem::path& path, OpenOptions options = {}) {
  if (options.host.empty()) options.host = "node1";
  auto store = Store::open(path, options);
  if (!store) {
    ADD_FAILURE() << store.error().message;
    std::abort();
  }
  return std::move(*store);
}

inline DeviceSampleRecord sample(const std::string& uuid, TimeUs time_us, double utilization,
                                 std::optional<double> energy = std::nullopt) {
  return DeviceSampleRecord{.uuid = uuid,
                            .index = 0,
                            .time_us = time_us,
                            .utilization_gpu_percent = utilization,
                            .utilization_memory_percent = utilization / 2,
                            .memory_used_bytes = 1e9,
                            .power_draw_watts = 100 + utilization,
                            .temperature_celsius = 40,
                            .energy_joules = energy};
}

inline ProcessIdentity process(Pid pid, const std::string& user, const std::string& gpu_uuid,
                               std::uint32_t gpu_index = 0) {
  return ProcessIdentity{.pid = pid,
                         .start_time_us = kT0 - kDay + pid,
                         .gpu_uuid = gpu_uuid,
                         .gpu_index = gpu_index,
                         .uid = 1000 + pid,
                         .user = user,
                         .command = "python train.py"};
}

// An interval in which the process held the GPU the whole time at `sm_percent` % SM use.
inline ProcessInterval interval(const ProcessIdentity& who, TimeUs begin_us, TimeUs end_us,
                                double sm_percent, std::uint64_t memory_bytes = 1ULL << 30,
                                double watts = 0) {
  const double seconds = static_cast<double>(end_us - begin_us) / 1e6;
  return ProcessInterval{.process = who,
                         .begin_us = begin_us,
                         .end_us = end_us,
                         .held_seconds = seconds,
                         .sm_busy_seconds = seconds * sm_percent / 100,
                         .peak_memory_bytes = memory_bytes,
                         .energy_joules = seconds * watts};
}

}  // namespace gpumeter::store::testing
