#include "view/gpu_status_json.h"

#include <cmath>

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

Json processes_json(const Device& device, const HostProcesses& hosts, Json& cmd) {
  Json pids = Json::array();
  if (!device.processes) return pids;
  for (const GpuProcess& process : *device.processes) {
    pids.push_back(process.pid);
    const Maybe<std::string> command = brief_command(host_view(hosts, process.pid));
    cmd.push_back(command ? Json(*command) : Json(nullptr));
  }
  return pids;
}

Json gpu_json(const Device& device, const Snapshot& snapshot) {
  using enum DeviceMetric;
  const DeviceState& state = device.state;
  Json gpu{{"index", device.identity.index},
           {"type", device.identity.name ? Json(*device.identity.name) : Json(nullptr)},
           {"utilization", whole(state[utilization_gpu])},
           {"memory_used", whole(state[memory_used], kBytesPerMib)},
           {"memory_total", whole(state[memory_total], kBytesPerMib)},
           {"clock", whole(state[clock_sm])},
           {"temperature", whole(state[temperature])},
           {"users", gpu_users(device, snapshot.processes)}};
  Json cmd = Json::array();
  gpu["pids"] = processes_json(device, snapshot.processes, cmd);
  const std::optional<TimeUs> since = oldest_start(device, snapshot.processes);
  gpu["since"] = since ? Json(iso8601_utc(*since)) : Json(nullptr);
  gpu["cmd"] = std::move(cmd);
  gpu["availability"] = std::string(status_key(gpu_status(device, snapshot.processes)));
  return gpu;
}

}  // namespace

Json gpu_status_json(const Snapshot& snapshot) {
  Json gpus = Json::array();
  for (const Device& device : snapshot.gpus.devices) gpus.push_back(gpu_json(device, snapshot));
  return Json{{"hostname", snapshot.hostname}, {"gpus", std::move(gpus)}};
}

}  // namespace gpumeter::view
