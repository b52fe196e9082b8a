// SPDX-License-Identifier: MIT
// What simulated NVML calls cost: none by default (unit tests), or a driver's typical costs,
// so that a benchmark or a demo pays for its calls what it would pay on a real machine
// (docs/scenarios.md, "Call costs").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gpumeter::sim {

inline constexpr const char* kCallCostsVariable = "GPUMETER_SIM_CALL_COSTS";

using CallCosts = std::map<std::string, double, std::less<>>;  // ms by function name

// A driver's typical costs: PCIe throughput about 20 ms (it counts over a 20 ms window, as
// NVIDIA documents), per-process utilisation a few ms, the sample buffers and process lists
// under a ms; every other call a few µs (the "*" entry).
CallCosts typical_call_costs();

// $GPUMETER_SIM_CALL_COSTS: "typical" or "off" override what the scenario says; unset or
// anything else: nullopt (the scenario's costs stand).
std::optional<CallCosts> call_costs_from_environment();

// The cost of one call of `function`: its own entry, else "*", else 0.
double call_cost_ms(const CallCosts& costs, std::string_view function);

}  // namespace gpumeter::sim
