// SPDX-License-Identifier: MIT
// The store's own bookkeeping in the meta table: how far each tier has been aggregated and
// pruned. Internal to src/store; every value is a time in µs since the Unix epoch.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "store/sqlite.h"

namespace gpumeter::store::meta {

// Every minute bucket before this is aggregated from the raw samples (device_minutes).
inline constexpr std::string_view kDeviceMinutesUntil = "device_minutes_until_us";
// Every hour bucket before this is aggregated from the minute aggregates (device_hours).
inline constexpr std::string_view kDeviceHoursUntil = "device_hours_until_us";
// Rows before these times may have been deleted by retention; a late record for such a time
// is not stored in that table.
inline constexpr std::string_view kDeviceSamplesPrunedBefore = "device_samples_pruned_before_us";
inline constexpr std::string_view kDeviceMinutesPrunedBefore = "device_minutes_pruned_before_us";
inline constexpr std::string_view kDeviceHoursPrunedBefore = "device_hours_pruned_before_us";
inline constexpr std::string_view kProcessMinutesPrunedBefore = "process_minutes_pruned_before_us";
inline constexpr std::string_view kProcessHoursPrunedBefore = "process_hours_pruned_before_us";
inline constexpr std::string_view kMigMemoryMinutesPrunedBefore =
    "mig_memory_minutes_pruned_before_us";
inline constexpr std::string_view kMigMemoryHoursPrunedBefore = "mig_memory_hours_pruned_before_us";
// Every hour bucket before this is rolled up from vgpu_minutes into vgpu_hours; and the
// retention horizons of both vGPU tiers.
inline constexpr std::string_view kVgpuHoursUntil = "vgpu_hours_until_us";
inline constexpr std::string_view kVgpuMinutesPrunedBefore = "vgpu_minutes_pruned_before_us";
inline constexpr std::string_view kVgpuHoursPrunedBefore = "vgpu_hours_pruned_before_us";
// How far the recorder of one host has recorded process intervals: "recorded_until_us.<host id>".
std::string recorded_until_key(std::int64_t host_id);

std::expected<std::optional<std::int64_t>, Error> read(sqlite::Connection& connection,
                                                       std::string_view key);
std::expected<void, Error> write(sqlite::Connection& connection, std::string_view key,
                                 std::int64_t value);
// Sets the value to `value` when that is lower than the stored one; nothing when absent.
std::expected<void, Error> lower(sqlite::Connection& connection, std::string_view key,
                                 std::int64_t value);
// Sets the value to `value` when that is higher than the stored one, or none is stored.
std::expected<void, Error> raise(sqlite::Connection& connection, std::string_view key,
                                 std::int64_t value);

}  // namespace gpumeter::store::meta
