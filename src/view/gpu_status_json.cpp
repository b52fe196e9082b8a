// SPDX-License-Identifier: MIT
#include "view/gpu_status_json.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <string_view>

#include "view/gpu_status.h"
#include "view/iso_time.h"

namespace gpumeter::view {
namespace {

constexpr double kBytesPerMib = 1024.0 * 1024.0;

// A whole number (values in this shape are whole), or null when absent.
Json whole(const Maybe<double>& value, double divisor = 1.0) {
  if (!value) return nullptr;
  return static_cast<std::int64_t>(std::llround(*value / divisor));
}

// nvgpu's per-process columns: the pids and one owner per process ("?" for one that cannot be
// seen), comma-joined, and the first process's short command.
struct ProcessColumns {
  std::string pids;
  std::string users;
  Json cmd = nullptr;
};

ProcessColumns process_columns(const Device& device, const HostProcesses& hosts) {
  ProcessColumns columns;
  if (!device.processes) return columns;
  for (const GpuProcess& process : *device.processes) {
    const Maybe<HostProcess>& host = host_view(hosts, process.pid);
    const std::string_view comma = columns.pids.empty() ? "" : ",";
    columns.pids += fmt::format("{}{}", comma, process.pid);
    columns.users += fmt::format("{}{}", comma, owner_name(host).value_or("?"));
    if (columns.cmd.is_null()) {
      if (const Maybe<std::string> command = brief_command(host)) columns.cmd = *command;
    }
  }
  return columns;
}

Json gpu_json(const Device& device, const Snapshot& snapshot, TimeUs now_us) {
  using enum DeviceMetric;
  const DeviceState& state = device.state;
  const GpuStatus status = gpu_status(device, snapshot.processes);
  ProcessColumns columns = process_columns(device, snapshot.processes);
  const std::optional<TimeUs> since = oldest_start(device, snapshot.processes);
  return Json{{"type", device.identity.name ? Json(*device.identity.name) : Json(nullptr)},
              {"is_available", status == GpuStatus::free},
              {"pids", std::move(columns.pids)},
              {"users", std::move(columns.users)},
              {"running_since", since ? Json(ago_in_words(now_us - *since)) : Json(nullptr)},
              {"utilization", whole(state[utilization_gpu])},
              {"clock_mhz", whole(state[clock_sm])},
              {"temperature", whole(state[temperature])},
              {"cmd", std::move(columns.cmd)},
              {"index", device.identity.index},
              {"memory_used", whole(state[memory_used], kBytesPerMib)},
              {"memory_total", whole(state[memory_total], kBytesPerMib)},
              {"since", since ? Json(iso8601_utc(*since)) : Json(nullptr)},
              {"availability", std::string(status_key(status))}};
}

struct Unit {
  TimeUs us;
  std::string_view one;   // "a minute"
  std::string_view many;  // "minutes"
};

}  // namespace

std::string ago_in_words(TimeUs duration_us) {
  static constexpr std::array kUnits{
      Unit{365 * kDayUs, "a year", "years"},  Unit{30 * kDayUs, "a month", "months"},
      Unit{kDayUs, "a day", "days"},          Unit{kHourUs, "an hour", "hours"},
      Unit{kMinuteUs, "a minute", "minutes"},
  };
  if (duration_us < 10 * kSecondUs) return "just now";
  for (const Unit& unit : kUnits) {
    const TimeUs count = duration_us / unit.us;
    if (count == 1) return fmt::format("{} ago", unit.one);
    if (count > 1) return fmt::format("{} {} ago", count, unit.many);
  }
  return fmt::format("{} seconds ago", duration_us / kSecondUs);
}

Json gpu_status_json(const Snapshot& snapshot) {
  Json gpus = Json::array();
  for (const Device& device : snapshot.gpus.devices) {
    gpus.push_back(gpu_json(device, snapshot, snapshot.time_us));
  }
  return Json{{"hostname", snapshot.hostname}, {"gpus", std::move(gpus)}};
}

}  // namespace gpumeter::view
