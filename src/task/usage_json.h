// SPDX-License-Identifier: MIT
// The JSON figures of what processes used on one GPU (core/attribution.h's GpuUsage), shared by
// the task protocol's replies (docs/task-protocol.md) and `gpumeter run --json`
// (docs/run.md), so that both name and write each figure the same way. Templates over the
// JSON type: the protocol writes nlohmann::json, `run` an ordered document.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>

#include "core/attribution.h"
#include "core/unavailable.h"

namespace gpumeter::task {

// The key prefix of an engine's figures: "sm", "memory_controller", "encoder", ...
constexpr std::string_view engine_json_prefix(Engine engine) noexcept {
  switch (engine) {
    case Engine::sm: return "sm";
    case Engine::memory: return "memory_controller";
    case Engine::encoder: return "encoder";
    case Engine::decoder: return "decoder";
    case Engine::jpeg: return "jpeg";
    case Engine::ofa: return "ofa";
  }
  return "unknown";
}

inline constexpr std::array kAllEngines{Engine::sm,      Engine::memory, Engine::encoder,
                                        Engine::decoder, Engine::jpeg,   Engine::ofa};

// Writes a figure, or null and its reason in the object's "unavailable" map.
template <class Json, class T>
void put_figure(Json& object, const std::string& key, const Maybe<T>& value) {
  if (value) {
    object[key] = *value;
  } else {
    object[key] = nullptr;
    object["unavailable"][key] = to_string(value.error());
  }
}

// <engine>_percent, <engine>_busy_seconds and <engine>_peak_percent of each engine given, and
// the bounds of the first two: <engine>_percent_lower, <engine>_percent_upper,
// <engine>_busy_seconds_lower and <engine>_busy_seconds_upper.
template <class Json>
void put_engine_figures(Json& gpu, const GpuUsage& usage, std::span<const Engine> engines) {
  for (const Engine engine : engines) {
    const EngineUse& use = usage[engine];
    const std::string prefix(engine_json_prefix(engine));
    put_figure(gpu, prefix + "_percent", use.average_percent);
    put_figure(gpu, prefix + "_busy_seconds", use.busy_seconds);
    put_figure(gpu, prefix + "_peak_percent", use.peak_percent);
    put_figure(gpu, prefix + "_percent_lower", use.average_percent_lower);
    put_figure(gpu, prefix + "_percent_upper", use.average_percent_upper);
    put_figure(gpu, prefix + "_busy_seconds_lower", use.busy_seconds_lower);
    put_figure(gpu, prefix + "_busy_seconds_upper", use.busy_seconds_upper);
  }
}

// "attribution": "process" where the figures are the processes' own, "device" where they are
// the whole device's (core/attribution.h's AttributionLevel).
constexpr std::string_view attribution_name(AttributionLevel level) noexcept {
  return level == AttributionLevel::device ? "device" : "process";
}

// The confidence's sm_bounds_width_pp: null with its reason where the SM figures are.
template <class Json>
void put_bounds_width(Json& gpu, const GpuUsage& usage) {
  put_figure(gpu, "sm_bounds_width_pp", usage.confidence.sm_bounds_width_pp);
}

// GPU memory at the window's edges and its peak, and the energy split.
template <class Json>
void put_memory_and_energy(Json& gpu, const GpuUsage& usage) {
  put_figure(gpu, "memory_at_start_bytes", usage.memory.at_start_bytes);
  put_figure(gpu, "memory_at_end_bytes", usage.memory.at_end_bytes);
  put_figure(gpu, "memory_peak_bytes", usage.memory.peak_bytes);
  put_figure(gpu, "energy_joules", usage.energy.processes_joules);
  put_figure(gpu, "energy_device_joules", usage.energy.device_joules);
  put_figure(gpu, "energy_other_processes_joules", usage.energy.other_processes_joules);
  put_figure(gpu, "energy_idle_joules", usage.energy.idle_joules);
}

}  // namespace gpumeter::task
