// The samples the sampler records and the series keep: per device, per process on a device
// (utilisation and memory), and per process on the host. Plain types; times are µs since the
// Unix epoch (NVML's clock).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/model.h"

namespace gpumeter {

// The GPU engines the driver reports per-process utilisation for.
enum class Engine : std::uint8_t { sm, memory, encoder, decoder, jpeg, ofa };
inline constexpr std::size_t kEngineCount = 6;

// A set of engines, one bit per Engine.
using EngineMask = std::uint8_t;
constexpr EngineMask engine_bit(Engine engine) noexcept {
  return static_cast<EngineMask>(1U << static_cast<unsigned>(engine));
}
// The engines every per-process utilisation call reports; jpeg and ofa come only from the
// newer call (nvmlDeviceGetProcessesUtilizationInfo).
inline constexpr EngineMask kClassicEngines = 0x0F;

// One per-process utilisation sample as the driver reports it. It covers the driver's sample
// period that ends at time_us. Values are percent of that period; drivers have been seen to
// report junk above 100 for zombie processes, which the series clamps.
struct ProcessGpuSample {
  TimeUs time_us = 0;
  std::uint32_t sm = 0;
  std::uint32_t mem = 0;  // memory controller (frame-buffer reads and writes)
  std::uint32_t enc = 0;
  std::uint32_t dec = 0;
  std::optional<std::uint32_t> jpg;  // absent when the driver call does not report it
  std::optional<std::uint32_t> ofa;  // optical flow accelerator; likewise
};

// A ProcessGpuSample as the series stores it: clamped to 0..100, 16 bytes.
struct ProcessGpuRecord {
  TimeUs time_us = 0;
  std::array<std::uint8_t, kEngineCount> percent{};  // indexed by Engine
  EngineMask reported = kClassicEngines;             // engines the driver reported

  std::uint8_t operator[](Engine engine) const noexcept {
    return percent[static_cast<std::size_t>(engine)];
  }
  bool reports(Engine engine) const noexcept { return (reported & engine_bit(engine)) != 0; }
};

// The device metrics attribution needs, read once per sampler interval.
struct DeviceSample {
  TimeUs time_us = 0;
  Maybe<double> utilization_gpu_percent = std::unexpected(Unavailable::error);
  Maybe<double> utilization_memory_percent = std::unexpected(Unavailable::error);
  Maybe<double> memory_used_bytes = std::unexpected(Unavailable::error);
  Maybe<double> power_watts = std::unexpected(Unavailable::error);
  Maybe<double> energy_joules = std::unexpected(Unavailable::error);  // monotonic counter
  // Whether the sampler drained the device's per-process utilisation samples in this round
  // (a NOT_FOUND answer, "no process was busy", counts as drained). Attribution only trusts
  // "no sample means 0 %" for times the sampler was draining.
  bool processes_drained = true;
};

// The DeviceSample for a device state read at `time_us`.
DeviceSample device_sample(TimeUs time_us, const DeviceState& state, bool processes_drained);

// GPU memory one process holds on one device, from the device's process list. When a process
// leaves the list the sampler records 0 bytes, so that its last value does not linger.
struct ProcessMemorySample {
  TimeUs time_us = 0;
  std::uint64_t used_bytes = 0;
};

// CPU time and resident memory of one process on the host.
struct HostSample {
  TimeUs time_us = 0;
  std::int64_t cpu_user_us = 0;    // cumulative since the process started
  std::int64_t cpu_system_us = 0;  // cumulative since the process started
  Maybe<std::uint64_t> rss_bytes = std::unexpected(Unavailable::error);
  Maybe<std::uint64_t> peak_rss_bytes = std::unexpected(Unavailable::error);  // VmHWM
};

}  // namespace gpumeter
