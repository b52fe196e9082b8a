// SPDX-License-Identifier: MIT
// Scripted sources for the sampler's tests: a GPU source whose devices, process lists and
// per-process samples a test sets before each round, and a host whose processes' start times
// and CPU figures it sets likewise.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/source.h"

namespace gpumeter::testing {

class ScriptedGpus final : public GpuSource {
 public:
  struct Gpu {
    bool lost = false;
    Maybe<std::vector<GpuProcess>> processes = std::vector<GpuProcess>{};
    // Answered by the next drain; samples at or before last_seen are withheld, as drivers do.
    Maybe<std::vector<PidGpuSample>> buffered = std::vector<PidGpuSample>{};
    double energy_joules = 0;
    Maybe<double> temperature_celsius = std::unexpected(Unavailable::error);
    std::optional<std::string> uuid;  // absent: the device has none
    std::vector<std::optional<TimeUs>> last_seen_passed;
    // The device sample buffers, answered like `buffered` (unsupported unless set), and how
    // often each was asked for.
    Maybe<std::vector<BufferedSample>> power = std::unexpected(Unavailable::not_supported);
    Maybe<std::vector<BufferedSample>> utilization = std::unexpected(Unavailable::not_supported);
    int power_drains = 0;
    int utilization_drains = 0;
  };

  std::string_view name() const noexcept override { return "scripted"; }

  std::expected<GpuReading, Error> read() override {
    std::lock_guard lock(mutex_);
    ++reads;
    if (fail) return std::unexpected(Error{ErrorCode::driver_failed, "scripted failure"});
    GpuReading reading;
    for (std::uint32_t i = 0; i < gpus.size(); ++i) reading.devices.push_back(device(i));
    return reading;
  }

  Maybe<std::vector<PidGpuSample>> drain_process_utilization(
      std::uint32_t index, std::optional<TimeUs> last_seen_us) override {
    std::lock_guard lock(mutex_);
    Gpu& gpu = gpus.at(index);
    gpu.last_seen_passed.push_back(last_seen_us);
    if (!gpu.buffered) return gpu.buffered;
    std::vector<PidGpuSample> newer;
    for (const PidGpuSample& s : *gpu.buffered) {
      if (!last_seen_us || s.sample.time_us > *last_seen_us) newer.push_back(s);
    }
    return newer;
  }

  Maybe<std::vector<BufferedSample>> drain_device_samples(
      std::uint32_t index, DeviceBuffer buffer, std::optional<TimeUs> last_seen_us) override {
    std::lock_guard lock(mutex_);
    Gpu& gpu = gpus.at(index);
    const bool power = buffer == DeviceBuffer::power;
    ++(power ? gpu.power_drains : gpu.utilization_drains);
    const auto& buffered = power ? gpu.power : gpu.utilization;
    if (!buffered) return buffered;
    std::vector<BufferedSample> newer;
    for (const BufferedSample& s : *buffered) {
      if (!last_seen_us || s.time_us > *last_seen_us) newer.push_back(s);
    }
    return newer;
  }

  // The scripted lists as they stand now, for the devices asked about (each call's devices are
  // kept in memory_asked).
  Maybe<std::map<std::uint32_t, std::uint64_t>> process_memory(
      Pid pid, std::span<const std::uint32_t> devices) override {
    std::lock_guard lock(mutex_);
    memory_asked.emplace_back(devices.begin(), devices.end());
    std::map<std::uint32_t, std::uint64_t> held;
    for (const std::uint32_t index : devices) {
      const Gpu& gpu = gpus.at(index);
      if (!gpu.processes) continue;
      std::uint64_t& bytes = held[index];
      for (const GpuProcess& process : *gpu.processes) {
        if (process.pid == pid) bytes = process.used_memory_bytes.value_or(0);
      }
    }
    return held;
  }

  // Holds the source's lock while `edit` changes the script (for the threaded test).
  template <class F>
  void edit(F&& f) {
    std::lock_guard lock(mutex_);
    f(*this);
  }

  std::vector<Gpu> gpus;
  bool fail = false;
  int reads = 0;
  std::vector<std::vector<std::uint32_t>> memory_asked;

 private:
  Device device(std::uint32_t index) const {
    const Gpu& gpu = gpus[index];
    Device device;
    device.identity.index = index;
    device.lost = gpu.lost;
    device.processes = gpu.lost
                           ? Maybe<std::vector<GpuProcess>>(std::unexpected(Unavailable::gpu_lost))
                           : gpu.processes;
    device.state[DeviceMetric::energy] = gpu.energy_joules;
    device.state[DeviceMetric::temperature] = gpu.temperature_celsius;
    if (gpu.uuid) device.identity.uuid = *gpu.uuid;
    return device;
  }

  std::mutex mutex_;
};

class ScriptedHost final : public ProcessSource {
 public:
  struct Process {
    std::optional<TimeUs> start_us;  // absent: the host cannot tell
    ProcessUsage usage;
  };

  Maybe<HostProcess> describe(Pid pid) override {
    std::lock_guard lock(mutex_);
    ++describes;
    const auto it = processes.find(pid);
    if (it == processes.end()) return std::unexpected(Unavailable::process_gone);
    HostProcess process;
    process.pid = pid;
    if (it->second.start_us) process.start_time_us = *it->second.start_us;
    return process;
  }

  Maybe<ProcessUsage> usage(Pid pid, UsageDetail detail) override {
    std::lock_guard lock(mutex_);
    ++usages;
    if (detail == UsageDetail::with_peak) ++peak_usages;
    const auto it = processes.find(pid);
    if (it == processes.end()) return std::unexpected(Unavailable::process_gone);
    ProcessUsage usage = it->second.usage;
    // As procfs: the high-water mark only when asked for.
    if (detail == UsageDetail::current)
      usage.peak_rss_bytes = std::unexpected(Unavailable::not_supported);
    return usage;
  }

  std::map<Pid, Process> processes;
  int describes = 0;
  int usages = 0;
  int peak_usages = 0;  // usages that asked for the high-water mark

 private:
  std::mutex mutex_;
};

// A process on a GPU holding `bytes` of its memory.
inline GpuProcess on_gpu(Pid pid, std::uint64_t bytes) {
  GpuProcess process;
  process.pid = pid;
  process.contexts.compute = true;
  process.used_memory_bytes = bytes;
  return process;
}

inline PidGpuSample busy(Pid pid, TimeUs t, std::uint32_t sm) {
  return PidGpuSample{pid, ProcessGpuSample{.time_us = t, .sm = sm, .mem = sm / 2}};
}

}  // namespace gpumeter::testing
