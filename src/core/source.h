// SPDX-License-Identifier: MIT
// The interfaces sources implement. Consumers never call a source; the collector does, and
// publishes a Snapshot.
#pragma once

#include <cstdint>
#include <expected>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/accounting.h"
#include "core/error.h"
#include "core/model.h"
#include "core/samples.h"

namespace gpumeter {

// One per-process utilisation sample of a device, with the pid the driver reported it for.
struct PidGpuSample {
  Pid pid = 0;
  ProcessGpuSample sample;
};

// The driver's device-wide sample buffers (NVML's nvmlDeviceGetSamples) that the sampler drains.
enum class DeviceBuffer : std::uint8_t {
  power,            // the board's power draw, W
  gpu_utilization,  // the share of time a kernel ran, percent
};

// One entry of a device sample buffer: the mean over the driver's sample period that ends at
// time_us (µs since the Unix epoch), in the buffer's unit (see DeviceBuffer).
struct BufferedSample {
  TimeUs time_us = 0;
  double value = 0.0;
};

// A GPU backend (NVML, Jetson). One read() returns everything visible now; a failing
// device or field is carried as data inside the reading, not as an error. An error means
// nothing could be read at all (e.g. the driver went away).
class GpuSource {
 public:
  virtual ~GpuSource() = default;
  virtual std::string_view name() const noexcept = 0;
  virtual std::expected<GpuReading, Error> read() = 0;
  // Each GPU's identity and memory, and nothing else (`gpumeter info`): a source whose other
  // readings cost time (a driver's PCIe throughput takes about 20 ms a GPU) reads only these;
  // this default reads everything.
  virtual std::expected<GpuReading, Error> read_inventory() { return read(); }

  // The per-process utilisation samples the driver has buffered for the device with
  // DeviceIdentity::index `device_index` that are newer than `last_seen_us` (all of them when
  // absent). Pass the newest sample time already stored for that device, never "now": the
  // driver stamps samples at its own period, and a sample stamped before "now" but not yet
  // drained would be lost. Samples are as the driver reports them (values are not clamped),
  // except that none is at or before `last_seen_us`.
  // An empty vector means no process was busy since then (drained; NVML's NOT_FOUND).
  // Errors: not_supported when the device or driver has no such samples (MIG, old drivers,
  // and this default), gpu_lost, no_permission, error.
  virtual Maybe<std::vector<PidGpuSample>> drain_process_utilization(
      std::uint32_t /*device_index*/, std::optional<TimeUs> /*last_seen_us*/) {
    return std::unexpected(Unavailable::not_supported);
  }

  // The entries of one of the device's sample buffers (DeviceIdentity::index `device_index`)
  // newer than `last_seen_us` (the whole buffer when absent), oldest first. The driver stamps
  // an entry every sample period, busy or not. As for drain_process_utilization, pass the
  // newest time already stored, never "now". An empty vector: nothing newer (NVML's NOT_FOUND).
  // Errors: not_supported when the device has no such buffer (MIG for utilisation, boards
  // without a power sensor, and this default), gpu_lost, no_permission, error.
  virtual Maybe<std::vector<BufferedSample>> drain_device_samples(
      std::uint32_t /*device_index*/, DeviceBuffer /*buffer*/,
      std::optional<TimeUs> /*last_seen_us*/) {
    return std::unexpected(Unavailable::not_supported);
  }

  // The GPU memory process `pid` holds now, in bytes, on each of `devices` (by
  // DeviceIdentity::index) whose process lists could be read: 0 where the lists do not name
  // it. Reads only those devices' process lists: a task's edge wants the figure when its
  // request arrives, not a round later. Any thread, also while read() runs: it uses nothing
  // of the source that read() changes.
  // Errors: not_supported (no list of `devices` could be read, the process is listed without
  // a figure, or this default).
  virtual Maybe<GpuMemoryHeld> process_memory(Pid /*pid*/,
                                              std::span<const std::uint32_t> /*devices*/) {
    return std::unexpected(Unavailable::not_supported);
  }

  // What changes the GPUs' accounting mode, or null when this source cannot (this default).
  virtual AccountingControl* accounting_control() noexcept { return nullptr; }
  // Root only: forgets the accounting records of processes that ended inside the VM of vGPU
  // instance `instance` (docs/vgpu.md). Errors: no_permission when not root, not_supported
  // (no vGPU host, accounting off, or this default), error.
  virtual Maybe<void> clear_vgpu_accounting(std::uint32_t /*instance*/) {
    return std::unexpected(Unavailable::not_supported);
  }
};

// CPU time and memory of a process at one instant.
struct ProcessUsage {
  std::int64_t cpu_user_us = 0;    // user CPU time since the process started, µs
  std::int64_t cpu_system_us = 0;  // system CPU time since the process started, µs
  Maybe<std::uint64_t> rss_bytes = std::unexpected(Unavailable::error);       // resident now
  Maybe<std::uint64_t> peak_rss_bytes = std::unexpected(Unavailable::error);  // high-water mark
};

// How much a usage() reading includes. The high-water mark costs a second, dearer read on
// Linux (/proc/PID/status), so the sampler asks for it only for the processes a task or a run
// follows.
enum class UsageDetail : std::uint8_t {
  current,    // CPU times and resident memory now; peak_rss_bytes may be absent
  with_peak,  // and the resident high-water mark
};

// The host's view of processes (procfs, cgroups).
class ProcessSource {
 public:
  virtual ~ProcessSource() = default;

  // A sampler round begins: readings until the next call may share what they read (procfs
  // reads a process's stat once for describe() and usage()).
  virtual void begin_round() {}
  // Unavailable::process_gone when the pid does not exist (or is hidden from us),
  // no_permission when it exists but cannot be read.
  virtual Maybe<HostProcess> describe(Pid pid) = 0;

  // CPU times and resident memory of the process now (and its peak, as `detail` asks). Errors
  // as for describe(); not_supported when the source knows nothing of CPU and memory (this
  // default).
  virtual Maybe<ProcessUsage> usage(Pid /*pid*/, UsageDetail /*detail*/) {
    return std::unexpected(Unavailable::not_supported);
  }
};

}  // namespace gpumeter
