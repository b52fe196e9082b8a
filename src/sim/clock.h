// SPDX-License-Identifier: MIT
// The simulated clock. Scenario time is t = (now_us - epoch_us) / 1e6, where
//   - epoch_us is $GPUMETER_SIM_EPOCH_US when set (so several processes share one
//     timeline), else a time the caller picks (the library: its first nvmlInit);
//   - now_us is $GPUMETER_SIM_NOW_US when set (time stands still, or moves only when a test
//     changes the variable; read on every call), else the wall clock.
// Both are µs since the Unix epoch, NVML's clock.
#pragma once

#include <cstdint>
#include <optional>

namespace gpumeter::sim {

inline constexpr const char* kEpochVariable = "GPUMETER_SIM_EPOCH_US";
inline constexpr const char* kNowVariable = "GPUMETER_SIM_NOW_US";
inline constexpr const char* kScenarioVariable = "GPUMETER_SIM_SCENARIO";

// $GPUMETER_SIM_EPOCH_US, if set to a whole number.
std::optional<std::int64_t> epoch_from_environment() noexcept;

// $GPUMETER_SIM_NOW_US if set to a whole number, else the wall clock.
std::int64_t now_us() noexcept;

}  // namespace gpumeter::sim
