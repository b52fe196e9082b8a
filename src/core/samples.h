// SPDX-License-Identifier: MIT
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
// The media engines (encoder, decoder, JPEG, OFA) follow the compute ones in Engine's order.
inline constexpr std::size_t kFirstMediaEngine = static_cast<std::size_t>(Engine::encoder);
inline constexpr std::size_t kMediaEngineCount = kEngineCount - kFirstMediaEngine;

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

// Per-process utilisation as the series stores it, 16 bytes. A record covers a period that
// ends at time_us and holds each engine's average percent over that period, 0..100:
//  - a raw record is one ProcessGpuSample, clamped, for the driver's sample period;
//  - a coarse record folds the raw records of one bucket (core/utilization_series.h): each
//    percent is the engine's busy time over the bucket's length, rounded to the nearest
//    percent, and peak_sm the highest SM percent of a raw record folded into it.
struct ProcessGpuRecord {
  TimeUs time_us = 0;
  std::array<std::uint8_t, kEngineCount> percent{};  // indexed by Engine
  EngineMask reported = kClassicEngines;             // engines the driver reported
  std::uint8_t peak_sm = 0;                          // a raw record: its own SM percent

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
  Maybe<double> temperature_celsius = std::unexpected(Unavailable::error);
  // Whether the sampler drained the device's per-process utilisation samples in this round
  // (a NOT_FOUND answer, "no process was busy", counts as drained). Attribution only trusts
  // "no sample means 0 %" for times the sampler was draining.
  bool processes_drained = true;
  // Why not, when not drained: mig on a GPU in MIG mode, whose driver keeps no per-process
  // utilisation, so that attribution and the history can say so instead of "no data".
  Unavailable not_drained_reason = Unavailable::no_data;
};

// One entry of the driver's power sample buffer as the series keeps it, 16 bytes: the board's
// mean power over the driver's sample period that ends at time_us.
struct PowerSample {
  TimeUs time_us = 0;
  double watts = 0.0;
};

// The DeviceSample for a device state read at `time_us`; `drained` is the drain's outcome.
DeviceSample device_sample(TimeUs time_us, const DeviceState& state, Maybe<void> drained);

// A DeviceSample as the series stores it, 40 bytes: the energy counter and memory as read,
// utilisation (clamped to 0..100) and power as floats, whose 7 digits are plenty for them, the
// temperature in whole °C (clamped to 0..255: what NVML reports; a board's sensor is rounded),
// and each figure's reason for absence packed beside them.
class DeviceRecord {
 public:
  DeviceRecord() = default;
  explicit DeviceRecord(const DeviceSample& sample);

  TimeUs time_us = 0;

  bool processes_drained() const noexcept { return not_drained_ == 0; }
  // Why the per-process samples were not drained; meaningful only when they were not.
  Unavailable not_drained_reason() const noexcept {
    return not_drained_ == 0 ? Unavailable::no_data : static_cast<Unavailable>(not_drained_ - 1);
  }
  Maybe<double> utilization_gpu_percent() const noexcept;
  Maybe<double> utilization_memory_percent() const noexcept;
  Maybe<double> memory_used_bytes() const noexcept;
  Maybe<double> power_watts() const noexcept;
  Maybe<double> energy_joules() const noexcept;  // monotonic counter
  Maybe<double> temperature_celsius() const noexcept;

 private:
  enum class Figure : std::uint8_t {
    utilization_gpu,
    utilization_memory,
    memory,
    power,
    energy,
    temperature,
  };
  void put(Figure figure, const Maybe<double>& value) noexcept;
  Maybe<double> get(Figure figure, double value) const noexcept;

  double energy_joules_ = 0.0;
  double memory_used_bytes_ = 0.0;
  float utilization_gpu_percent_ = 0.0F;
  float utilization_memory_percent_ = 0.0F;
  float power_watts_ = 0.0F;
  // 3 bits per Figure but the temperature: 0 when the figure is present, else its Unavailable
  // reason + 1.
  std::uint16_t absent_ = 0;
  // 0 when the per-process samples were drained, else the reason they were not + 1.
  std::uint8_t not_drained_ : 4 = 0;
  std::uint8_t temperature_absent_ : 4 = 0;  // as absent_'s codes, for the temperature
  std::uint8_t temperature_celsius_ = 0;
};

// GPU memory one process holds on one device, from the device's process list. When a process
// leaves the list the sampler records 0 bytes, so that its last value does not linger.
struct ProcessMemorySample {
  TimeUs time_us = 0;
  std::uint64_t used_bytes = 0;
};

// CPU time and resident memory of one process on the host, as the sampler reads them.
struct HostSample {
  TimeUs time_us = 0;
  std::int64_t cpu_user_us = 0;    // cumulative since the process started
  std::int64_t cpu_system_us = 0;  // cumulative since the process started
  Maybe<std::uint64_t> rss_bytes = std::unexpected(Unavailable::error);
  Maybe<std::uint64_t> peak_rss_bytes = std::unexpected(Unavailable::error);  // VmHWM
};

// A HostSample as the series stores it, 32 bytes. Resident memory is kept in KiB, the unit the
// kernel reports it in (a byte count that is not a whole KiB is rounded up; at most 4 TiB - 2
// KiB); an amount that could not be read is kept as absent, without its reason, which
// attribution does not need.
struct HostRecord {
  static constexpr std::uint32_t kAbsentKib = 0xFFFFFFFF;

  TimeUs time_us = 0;
  std::int64_t cpu_user_us = 0;
  std::int64_t cpu_system_us = 0;
  std::uint32_t rss_kib = kAbsentKib;
  std::uint32_t peak_rss_kib = kAbsentKib;  // VmHWM

  std::optional<std::uint64_t> rss_bytes() const noexcept { return bytes_of(rss_kib); }
  std::optional<std::uint64_t> peak_rss_bytes() const noexcept { return bytes_of(peak_rss_kib); }
  // Whether the two hold the same figures, whatever their times.
  bool same_figures(const HostRecord& other) const noexcept {
    return cpu_user_us == other.cpu_user_us && cpu_system_us == other.cpu_system_us &&
           rss_kib == other.rss_kib && peak_rss_kib == other.peak_rss_kib;
  }

 private:
  static std::optional<std::uint64_t> bytes_of(std::uint32_t kib) noexcept {
    if (kib == kAbsentKib) return std::nullopt;
    return std::uint64_t{kib} * 1024;
  }
};

HostRecord host_record(const HostSample& sample);

// The series' budget (docs/attribution.md) counts on these sizes.
static_assert(sizeof(DeviceRecord) == 40);
static_assert(sizeof(ProcessGpuRecord) == 16);
static_assert(sizeof(HostRecord) == 32);
static_assert(sizeof(PowerSample) == 16);

}  // namespace gpumeter
