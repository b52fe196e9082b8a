// SPDX-License-Identifier: MIT
#include "view/list_json.h"

#include <fmt/format.h>

#include <cmath>

#include "view/accounting_json.h"
#include "view/board_json.h"
#include "view/gpu_status.h"
#include "view/iso_time.h"
#include "view/mig_json.h"
#include "view/vgpu_summary_json.h"

namespace gpumeter::view {
namespace {

// One host field; when the host could not describe the process at all, its reason.
template <class T>
Maybe<T> host_field(const Maybe<HostProcess>& host, Maybe<T> HostProcess::* member) {
  if (!host) return std::unexpected(host.error());
  return (*host).*member;
}

// Integral metrics print without a fraction (exact below 2^53 bytes, i.e. 8 PiB).
Json metric_value(const MetricSpec& spec, double value) {
  if (spec.integral) return static_cast<std::int64_t>(std::llround(value));
  return value;
}

std::string_view compute_mode_key(ComputeMode mode) {
  switch (mode) {
    case ComputeMode::default_mode: return "default";
    case ComputeMode::exclusive_thread: return "exclusive_thread";
    case ComputeMode::prohibited: return "prohibited";
    case ComputeMode::exclusive_process: return "exclusive_process";
  }
  return "default";
}

void put_identity(Json& gpu, Json& unavailable, const DeviceIdentity& identity) {
  gpu["index"] = identity.index;
  put(gpu, unavailable, "uuid", identity.uuid);
  put(gpu, unavailable, "name", identity.name);
  put(gpu, unavailable, "serial", identity.serial);
  put(gpu, unavailable, "pci_bus_id", identity.pci_bus_id);
  put(gpu, unavailable, "minor_number", identity.minor_number);
  put(gpu, unavailable, "architecture", identity.architecture);
  put(gpu, unavailable, "compute_capability", identity.compute_capability,
      [](const ComputeCapability& cc) { return fmt::format("{}.{}", cc.major, cc.minor); });
}

void put_state(Json& gpu, Json& unavailable, const DeviceState& state) {
  for (const MetricSpec& spec : device_metrics()) {
    put(gpu, unavailable, std::string(spec.key), state[spec.id],
        [&](double v) { return metric_value(spec, v); });
  }
  put(gpu, unavailable, "compute_mode", state.compute_mode,
      [](ComputeMode mode) { return compute_mode_key(mode); });
  put(gpu, unavailable, "persistence_mode", state.persistence_mode);
}

Json container_json(const std::optional<Container>& container) {
  if (!container) return nullptr;
  return {{"runtime", container->runtime}, {"id", container->id}};
}

Json namespace_pid_json(const std::optional<Pid>& pid) {
  return pid ? Json(*pid) : Json();
}

Json mig_json(const std::optional<MigInstance>& mig) {
  if (!mig) return nullptr;
  return {{"gpu_instance_id", mig->gpu_instance_id},
          {"compute_instance_id", mig->compute_instance_id}};
}

void put_host(Json& process, Json& unavailable, const Maybe<HostProcess>& host) {
  put(process, unavailable, "user", host_field(host, &HostProcess::user));
  put(process, unavailable, "uid", host_field(host, &HostProcess::uid));
  put(process, unavailable, "command", full_command(host));
  put(process, unavailable, "cmdline", host_field(host, &HostProcess::cmdline));
  put(process, unavailable, "short_command", brief_command(host));
  const Maybe<TimeUs> start = host_field(host, &HostProcess::start_time_us);
  put(process, unavailable, "start_time_us", start);
  put(process, unavailable, "start_time", start, [](TimeUs t) { return iso8601_utc(t); });
  process["container"] = host ? container_json(host->container) : Json();
  process["namespace_pid"] = host ? namespace_pid_json(host->namespace_pid) : Json();
  put(process, unavailable, "cpu_percent", host_field(host, &HostProcess::cpu_percent),
      [](double percent) { return std::round(percent * 10.0) / 10.0; });
  put(process, unavailable, "rss_bytes", host_field(host, &HostProcess::rss_bytes));
}

// Each engine's recent use (`list` collects it; a daemon's and `top`'s sampler publish it).
void put_recent_use(Json& process, Json& unavailable, const Maybe<RecentEngineUse>& use) {
  const auto engine = [&](Maybe<double> RecentEngineUse::* field) -> Maybe<double> {
    if (!use) return std::unexpected(use.error());
    return (*use).*field;
  };
  const auto tenths = [](double percent) { return std::round(percent * 10.0) / 10.0; };
  put(process, unavailable, "sm_percent", engine(&RecentEngineUse::sm_percent), tenths);
  put(process, unavailable, "memory_percent", engine(&RecentEngineUse::memory_percent), tenths);
  put(process, unavailable, "encoder_percent", engine(&RecentEngineUse::encoder_percent), tenths);
  put(process, unavailable, "decoder_percent", engine(&RecentEngineUse::decoder_percent), tenths);
  process["utilization_window_seconds"] =
      use ? Json(static_cast<double>(use->window_us) / 1e6) : Json(nullptr);
}

Json process_json(const GpuProcess& gpu_process, const HostProcesses& hosts) {
  Json process = Json::object();
  Json unavailable = Json::object();
  process["pid"] = gpu_process.pid;
  put_host(process, unavailable, host_view(hosts, gpu_process.pid));
  put(process, unavailable, "used_memory_bytes", gpu_process.used_memory_bytes);
  process["contexts"] = {{"compute", gpu_process.contexts.compute},
                         {"graphics", gpu_process.contexts.graphics},
                         {"mps", gpu_process.contexts.mps}};
  process["mig"] = mig_json(gpu_process.mig);
  put_recent_use(process, unavailable, gpu_process.recent_use);
  process["unavailable"] = std::move(unavailable);
  return process;
}

void put_processes(Json& gpu, Json& unavailable, const Device& device, const Snapshot& snapshot) {
  if (!device.processes) {
    gpu["users"] = nullptr;
    gpu["processes"] = nullptr;
    unavailable["processes"] = to_string(device.processes.error());
    return;
  }
  gpu["users"] = gpu_users(device, snapshot.processes);
  Json& processes = gpu["processes"] = Json::array();
  for (const GpuProcess& process : *device.processes) {
    processes.push_back(process_json(process, snapshot.processes));
  }
}

Json device_json(const Device& device, const Snapshot& snapshot) {
  Json gpu = Json::object();
  Json unavailable = Json::object();
  put_identity(gpu, unavailable, device.identity);
  gpu["status"] = status_key(gpu_status(device, snapshot.processes));
  gpu["lost"] = device.lost;
  put_state(gpu, unavailable, device.state);
  put_processes(gpu, unavailable, device, snapshot);
  put_accounting_summary(gpu, unavailable, device.accounting);
  put_mig(gpu, unavailable, device);
  put_vgpu_summary(gpu, unavailable, device);
  put_board(gpu, unavailable, device);
  gpu["unavailable"] = std::move(unavailable);
  return gpu;
}

Json driver_json(const DriverInfo& driver) {
  Json out = Json::object();
  Json unavailable = Json::object();
  put(out, unavailable, "driver_version", driver.driver_version);
  put(out, unavailable, "nvml_version", driver.nvml_version);
  put(out, unavailable, "cuda_driver_version", driver.cuda_driver_version);
  out["unavailable"] = std::move(unavailable);
  return out;
}

}  // namespace

Json list_json(const Snapshot& snapshot) {
  Json out = Json::object();
  out["schema_version"] = kListSchemaVersion;
  out["host"] = snapshot.hostname;
  out["time"] = iso8601_utc(snapshot.time_us);
  out["time_us"] = snapshot.time_us;
  out["source"] = snapshot.source;
  out["driver"] = driver_json(snapshot.gpus.driver);
  Json& gpus = out["gpus"] = Json::array();
  for (const Device& device : snapshot.gpus.devices) gpus.push_back(device_json(device, snapshot));
  return out;
}

}  // namespace gpumeter::view
