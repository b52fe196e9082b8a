// SPDX-License-Identifier: MIT
// Device metrics, one function per group, each filling its rows of core/metrics.h in the
// model's units.
#include <optional>

#include "nvml/convert.h"
#include "nvml/device_reader.h"
#include "nvml/maybe_ops.h"

namespace gpumeter::nvml {
namespace {

using enum DeviceMetric;

template <class T>
Maybe<double> as_double(const Maybe<T>& value) {
  return map_maybe(value, [](T v) { return static_cast<double>(v); });
}

void read_utilization(DeviceQuery& query, DeviceState& state) {
  const auto rates = query.get<abi::Utilization>(query.api().utilization_rates);
  state[utilization_gpu] = as_double(map_maybe(rates, &abi::Utilization::gpu));
  state[utilization_memory] = as_double(map_maybe(rates, &abi::Utilization::memory));
}

Maybe<double> codec_utilization(DeviceQuery& query,
                                const Entry<abi::DeviceCodecUtilizationFn>& entry) {
  unsigned percent = 0;
  unsigned period_us = 0;
  if (auto ok = query.call(entry, &percent, &period_us); !ok) return std::unexpected(ok.error());
  return static_cast<double>(percent);
}

void read_codecs(DeviceQuery& query, DeviceState& state) {
  state[utilization_encoder] = codec_utilization(query, query.api().encoder_utilization);
  state[utilization_decoder] = codec_utilization(query, query.api().decoder_utilization);
}

void set_memory(DeviceState& state, Maybe<double> total, Maybe<double> used, Maybe<double> free,
                Maybe<double> reserved) {
  state[memory_total] = std::move(total);
  state[memory_used] = std::move(used);
  state[memory_free] = std::move(free);
  state[memory_reserved] = std::move(reserved);
}

// v2 separates reserved memory from used. Returns false when this driver does not
// understand v2 (absent, wrong version word, not supported), so v1 should be asked.
bool read_memory_v2(DeviceQuery& query, DeviceState& state) {
  abi::MemoryV2 memory{};
  memory.version = abi::kMemoryV2Version;
  const CallResult code = query.invoke(query.api().memory_info_v2, &memory);
  if (!code && code.error() == Unavailable::not_supported) return false;
  if (code && means_try_older_call(*code)) return false;
  if (auto ok = DeviceQuery::succeeded(code); !ok) {
    set_memory(state, std::unexpected(ok.error()), std::unexpected(ok.error()),
               std::unexpected(ok.error()), std::unexpected(ok.error()));
    return true;
  }
  set_memory(state, static_cast<double>(memory.total), static_cast<double>(memory.used),
             static_cast<double>(memory.free), static_cast<double>(memory.reserved));
  return true;
}

// v1's `used` includes the reserved memory, which it does not report separately.
void read_memory_v1(DeviceQuery& query, DeviceState& state) {
  const auto memory = query.get<abi::Memory>(query.api().memory_info);
  const auto field = [&](std::uint64_t abi::Memory::* member) {
    return as_double(map_maybe(memory, member));
  };
  set_memory(state, field(&abi::Memory::total), field(&abi::Memory::used),
             field(&abi::Memory::free), std::unexpected(Unavailable::not_supported));
}

void read_memory(DeviceQuery& query, DeviceState& state) {
  if (!read_memory_v2(query, state)) read_memory_v1(query, state);
}

// The versioned call first (drivers >= 565); nullopt when the old one should be asked.
std::optional<Maybe<double>> temperature_versioned(DeviceQuery& query) {
  abi::Temperature reading{};
  reading.version = abi::kTemperatureVersion;
  reading.sensor_type = abi::kTemperatureGpu;
  const CallResult code = query.invoke(query.api().temperature_v, &reading);
  if (!code && code.error() == Unavailable::not_supported) return std::nullopt;
  if (code && means_try_older_call(*code)) return std::nullopt;
  if (auto ok = DeviceQuery::succeeded(code); !ok) return std::unexpected(ok.error());
  return static_cast<double>(reading.temperature);
}

void read_thermal(DeviceQuery& query, DeviceState& state) {
  auto temperature = temperature_versioned(query);
  if (!temperature) {
    temperature = as_double(query.get<unsigned>(query.api().temperature, abi::kTemperatureGpu));
  }
  state[DeviceMetric::temperature] = *temperature;
  state[fan_speed] = as_double(query.get<unsigned>(query.api().fan_speed));
}

void read_power(DeviceQuery& query, DeviceState& state) {
  const EntryPoints& api = query.api();
  state[power_draw] = map_maybe(query.get<unsigned>(api.power_usage), milliwatts_to_watts);
  state[power_limit] =
      map_maybe(query.get<unsigned>(api.enforced_power_limit), milliwatts_to_watts);
  state[energy] = map_maybe(query.get<std::uint64_t>(api.total_energy), millijoules_to_joules);
}

void read_clocks(DeviceQuery& query, DeviceState& state) {
  const EntryPoints& api = query.api();
  state[clock_sm] = as_double(query.get<unsigned>(api.clock, abi::kClockSm));
  state[clock_memory] = as_double(query.get<unsigned>(api.clock, abi::kClockMem));
  state[clock_graphics] = as_double(query.get<unsigned>(api.clock, abi::kClockGraphics));
  state[clock_sm_max] = as_double(query.get<unsigned>(api.max_clock, abi::kClockSm));
  state[clock_memory_max] = as_double(query.get<unsigned>(api.max_clock, abi::kClockMem));
  state[clock_graphics_max] = as_double(query.get<unsigned>(api.max_clock, abi::kClockGraphics));
  state[performance_state] =
      then_maybe(query.get<unsigned>(api.performance_state), to_performance_state);
}

void read_pcie(DeviceQuery& query, DeviceState& state) {
  const auto& entry = query.api().pcie_throughput;
  state[pcie_tx] = map_maybe(query.get<unsigned>(entry, abi::kPcieTxBytes), kilobytes_to_bytes);
  state[pcie_rx] = map_maybe(query.get<unsigned>(entry, abi::kPcieRxBytes), kilobytes_to_bytes);
}

// Aggregate counters over the GPU's lifetime and volatile ones since the driver loaded (what
// DCGM calls _AGG_ and _VOL_), as the metric table says.
void read_ecc(DeviceQuery& query, DeviceState& state) {
  const auto& entry = query.api().total_ecc_errors;
  const auto count = [&](abi::MemoryErrorType type, abi::EccCounterType counter) {
    return as_double(query.get<std::uint64_t>(entry, type, counter));
  };
  state[ecc_errors_corrected] = count(abi::kMemoryErrorCorrected, abi::kAggregateEcc);
  state[ecc_errors_uncorrected] = count(abi::kMemoryErrorUncorrected, abi::kAggregateEcc);
  state[ecc_errors_corrected_volatile] = count(abi::kMemoryErrorCorrected, abi::kVolatileEcc);
  state[ecc_errors_uncorrected_volatile] = count(abi::kMemoryErrorUncorrected, abi::kVolatileEcc);
}

// The count of pages retired for `cause`: asked with no buffer, the driver answers SUCCESS for
// none and INSUFFICIENT_SIZE with the count set when there are some.
Maybe<double> retired_page_count(DeviceQuery& query, abi::PageRetirementCause cause) {
  unsigned count = 0;
  const CallResult result = query.invoke(query.api().retired_pages, cause, &count, nullptr);
  if (result && *result == abi::kErrorInsufficientSize) return static_cast<double>(count);
  if (auto ok = DeviceQuery::succeeded(result); !ok) return std::unexpected(ok.error());
  return static_cast<double>(count);
}

// Page retirement: the memory health of boards before Ampere (later ones answer NOT_SUPPORTED
// and remap rows instead).
void read_retired_pages(DeviceQuery& query, DeviceState& state) {
  state[retired_pages_single_bit] = retired_page_count(query, abi::kRetiredMultipleSingleBit);
  if (!state[retired_pages_single_bit] &&
      state[retired_pages_single_bit].error() == Unavailable::not_supported) {
    state[retired_pages_double_bit] = std::unexpected(Unavailable::not_supported);
    state[retired_pages_pending] = std::unexpected(Unavailable::not_supported);
    return;  // a board that remaps rows: two calls saved per read
  }
  state[retired_pages_double_bit] = retired_page_count(query, abi::kRetiredDoubleBit);
  state[retired_pages_pending] =
      then_maybe(query.get<unsigned>(query.api().retired_pages_pending),
                 [](unsigned pending) -> Maybe<double> {
                   return map_maybe(to_enabled(pending), [](bool on) { return on ? 1.0 : 0.0; });
                 });
}

// Clock event reasons (r535 renamed them from throttle reasons; same bits), PCIe replays and
// row remapping (Ampere and newer): what DCGM's health checks and the alerts look at.
void read_health(DeviceQuery& query, DeviceState& state) {
  const EntryPoints& api = query.api();
  state[clock_event_reasons] = as_double(query.get<std::uint64_t>(api.clock_event_reasons));
  state[pcie_replays] = as_double(query.get<unsigned>(api.pcie_replay_counter));
  unsigned corrected = 0;
  unsigned uncorrected = 0;
  unsigned pending = 0;
  unsigned failed = 0;
  const auto rows = query.call(api.remapped_rows, &corrected, &uncorrected, &pending, &failed);
  const auto value = [&](unsigned v) -> Maybe<double> {
    if (!rows) return std::unexpected(rows.error());
    return static_cast<double>(v);
  };
  state[remapped_rows_corrected] = value(corrected);
  state[remapped_rows_uncorrected] = value(uncorrected);
  state[remap_pending] = value(pending != 0 ? 1 : 0);
  state[remap_failed] = value(failed != 0 ? 1 : 0);
  read_retired_pages(query, state);
}

void read_modes(DeviceQuery& query, DeviceState& state) {
  const EntryPoints& api = query.api();
  state.compute_mode = then_maybe(query.get<unsigned>(api.compute_mode), to_compute_mode);
  state.persistence_mode = then_maybe(query.get<unsigned>(api.persistence_mode), to_enabled);
}

}  // namespace

DeviceState read_state(DeviceQuery& query) {
  DeviceState state;
  read_utilization(query, state);
  read_codecs(query, state);
  read_memory(query, state);
  read_thermal(query, state);
  read_power(query, state);
  read_clocks(query, state);
  read_pcie(query, state);
  read_ecc(query, state);
  read_health(query, state);
  read_modes(query, state);
  return state;
}

DeviceState read_memory_state(DeviceQuery& query) {
  DeviceState state = absent_state(Unavailable::not_supported);
  read_memory(query, state);
  return state;
}

DeviceState absent_state(Unavailable reason) {
  DeviceState state;
  state.metrics.fill(std::unexpected(reason));
  state.compute_mode = std::unexpected(reason);
  state.persistence_mode = std::unexpected(reason);
  return state;
}

}  // namespace gpumeter::nvml
