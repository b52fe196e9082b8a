// SPDX-License-Identifier: MIT
// The model: plain types that every source fills and every consumer reads. No vendor type
// appears here. Times are microseconds since the Unix epoch (NVML's clock).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/accounting.h"
#include "core/board_sensors.h"
#include "core/metrics.h"
#include "core/unavailable.h"
#include "core/vgpu.h"

namespace gpumeter {

using Pid = std::uint32_t;
using TimeUs = std::int64_t;  // µs since the Unix epoch

// One second in the model's time unit, and the same as a divisor for figures in seconds.
inline constexpr TimeUs kSecondUs = 1'000'000;
inline constexpr auto kUsPerSecond = static_cast<double>(kSecondUs);
inline constexpr TimeUs kMinuteUs = 60 * kSecondUs;
inline constexpr TimeUs kHourUs = 60 * kMinuteUs;
inline constexpr TimeUs kDayUs = 24 * kHourUs;

struct ComputeCapability {
  int major = 0;
  int minor = 0;
};

enum class ComputeMode : std::uint8_t {
  default_mode,
  exclusive_thread,
  prohibited,
  exclusive_process
};

// What does not change while the driver stays loaded.
struct DeviceIdentity {
  std::uint32_t index = 0;
  Maybe<std::string> uuid = std::unexpected(Unavailable::error);
  Maybe<std::string> name = std::unexpected(Unavailable::error);
  Maybe<std::string> serial = std::unexpected(Unavailable::error);
  Maybe<std::string> pci_bus_id = std::unexpected(Unavailable::error);  // "00000000:19:00.0"
  Maybe<std::uint32_t> minor_number = std::unexpected(Unavailable::error);
  Maybe<std::string> architecture = std::unexpected(Unavailable::error);  // "Hopper"
  Maybe<ComputeCapability> compute_capability = std::unexpected(Unavailable::error);
};

// Readings at one instant, numeric ones indexed by DeviceMetric (see core/metrics.h).
struct DeviceState {
  std::array<Maybe<double>, kDeviceMetricCount> metrics;
  Maybe<ComputeMode> compute_mode = std::unexpected(Unavailable::error);
  Maybe<bool> persistence_mode = std::unexpected(Unavailable::error);

  DeviceState() { metrics.fill(std::unexpected(Unavailable::error)); }
  const Maybe<double>& operator[](DeviceMetric m) const {
    return metrics[static_cast<std::size_t>(m)];
  }
  Maybe<double>& operator[](DeviceMetric m) { return metrics[static_cast<std::size_t>(m)]; }
};

// How a process uses a GPU; a process may hold both a compute and a graphics context.
struct ProcessContexts {
  bool compute = false;
  bool graphics = false;
  bool mps = false;
};

struct MigInstance {
  std::uint32_t gpu_instance_id = 0;
  std::uint32_t compute_instance_id = 0;
};

// Each engine's use by one process over the driver's recent per-process samples (what
// `nvidia-smi pmon` prints, averaged over a few seconds so that one sample period's noise does
// not flicker): percent of the window each engine was busy for it. An engine the driver does
// not report per process is absent (not_supported).
struct RecentEngineUse {
  Maybe<double> sm_percent = std::unexpected(Unavailable::no_data);
  Maybe<double> memory_percent = std::unexpected(Unavailable::no_data);  // memory controller
  Maybe<double> encoder_percent = std::unexpected(Unavailable::no_data);
  Maybe<double> decoder_percent = std::unexpected(Unavailable::no_data);
  TimeUs window_us = 0;  // how far back the samples were taken from
};

// A process as the GPU driver sees it.
struct GpuProcess {
  Pid pid = 0;
  ProcessContexts contexts;
  Maybe<std::uint64_t> used_memory_bytes = std::unexpected(Unavailable::not_supported);
  std::optional<MigInstance> mig;  // absent when MIG is off
  // Filled only when the collection asks for it (CollectOptions::recent_use): no_data
  // otherwise; mig or not_supported where the driver keeps no per-process samples.
  Maybe<RecentEngineUse> recent_use = std::unexpected(Unavailable::no_data);
};

}  // namespace gpumeter

// MIG devices hold lists of GpuProcess, which must be complete by then.
#include "core/mig.h"  // NOLINT(llvm-include-order): needs GpuProcess, above

namespace gpumeter {

struct Device {
  DeviceIdentity identity;
  DeviceState state;
  // Absent (with a reason) when the process list could not be read.
  Maybe<std::vector<GpuProcess>> processes = std::vector<GpuProcess>{};
  bool lost = false;  // fell off the bus or needs a reset: only identity may be known
  // Accounting mode and records (core/accounting.h); absent when the mode cannot be read.
  Maybe<Accounting> accounting = std::unexpected(Unavailable::not_supported);
  // Its vGPU instances when the GPU runs as a vGPU host; not_supported on bare metal.
  Maybe<VgpuHost> vgpu = std::unexpected(Unavailable::not_supported);
  Maybe<MigState> mig = std::unexpected(Unavailable::not_supported);  // core/mig.h
  // An embedded board's rails and temperature sensors (core/board_sensors.h); not_supported
  // for a discrete GPU.
  Maybe<BoardSensors> board = std::unexpected(Unavailable::not_supported);
};

struct DriverInfo {
  Maybe<std::string> driver_version = std::unexpected(Unavailable::error);
  Maybe<std::string> nvml_version = std::unexpected(Unavailable::error);
  Maybe<std::string> cuda_driver_version = std::unexpected(Unavailable::error);  // "12.2"
};

// Everything a GPU source read at one instant.
struct GpuReading {
  DriverInfo driver;
  std::vector<Device> devices;
};

// The container or job a process belongs to, from its cgroup.
struct Container {
  std::string runtime;  // "docker", "containerd", "kubernetes", "slurm", "podman", ...
  std::string id;       // container id, pod uid or job id
};

// A process as the host (procfs) sees it.
struct HostProcess {
  Pid pid = 0;
  Maybe<std::uint32_t> uid = std::unexpected(Unavailable::error);
  Maybe<std::string> user = std::unexpected(Unavailable::error);  // name, or absent
  Maybe<std::vector<std::string>> cmdline = std::unexpected(Unavailable::error);
  Maybe<std::string> comm = std::unexpected(Unavailable::error);
  Maybe<TimeUs> start_time_us = std::unexpected(Unavailable::error);
  std::optional<Container> container;
  std::optional<Pid> namespace_pid;  // the pid inside its own pid namespace, when it differs
  // From the sampler's recent rounds where it is asked for them (SamplerConfig::recent_figures:
  // the daemon, `top`), no_data in a one-shot reading: CPU use over the last 5 s (100 % is one
  // core) and resident memory at the last reading.
  Maybe<double> cpu_percent = std::unexpected(Unavailable::no_data);
  Maybe<std::uint64_t> rss_bytes = std::unexpected(Unavailable::no_data);
};

// What consumers read: one collection, immutable once published.
// GPU memory a process holds, in bytes, by DeviceIdentity::index: one entry per GPU whose
// process lists were read (0 where they did not name the process).
using GpuMemoryHeld = std::map<std::uint32_t, std::uint64_t>;

struct Snapshot {
  TimeUs time_us = 0;
  std::string hostname;
  std::string source;  // "nvml", "nvml (simulated: <scenario>)", ...
  GpuReading gpus;
  // Host view of every process that appears on some GPU, keyed by pid.
  std::map<Pid, Maybe<HostProcess>> processes;
};

}  // namespace gpumeter
