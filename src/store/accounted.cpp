// SPDX-License-Identifier: MIT
#include "store/accounted.h"

#include <fmt/format.h>

namespace gpumeter::store {
namespace {

std::optional<double> value_of(const Maybe<double>& value) {
  return value ? std::optional<double>(*value) : std::nullopt;
}

bool good_percent(const std::optional<double>& value) {
  return !value || (*value >= 0 && *value <= 100);
}

}  // namespace

std::optional<AccountedProcess> accounted_process(const Device& device,
                                                  const AccountingRecord& record) {
  if (record.running || !record.time_ms || !device.identity.uuid) return std::nullopt;
  AccountedProcess out{.gpu_uuid = *device.identity.uuid,
                       .gpu_index = device.identity.index,
                       .pid = record.pid,
                       .start_time_us = record.start_time_us,
                       .time_ms = *record.time_ms};
  out.gpu_percent = value_of(record.gpu_util_percent);
  out.memory_percent = value_of(record.memory_util_percent);
  if (record.max_memory_bytes) out.max_memory_bytes = *record.max_memory_bytes;
  return out;
}

std::expected<void, Error> validate(const AccountedProcess& record) {
  const auto invalid = [&](std::string_view why) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              fmt::format("accounting record of pid {} not stored: {}", record.pid, why)});
  };
  if (record.gpu_uuid.empty()) return invalid("no GPU uuid");
  if (!good_percent(record.gpu_percent)) return invalid("GPU utilization outside 0-100");
  if (!good_percent(record.memory_percent)) return invalid("memory utilization outside 0-100");
  return {};
}

}  // namespace gpumeter::store
