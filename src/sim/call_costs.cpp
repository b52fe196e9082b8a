// SPDX-License-Identifier: MIT
#include "sim/call_costs.h"

#include <cstdlib>

namespace gpumeter::sim {

CallCosts typical_call_costs() {
  CallCosts costs{
      {"*", 0.005},
      {"nvmlDeviceGetPcieThroughput", 20.0},
      {"nvmlDeviceGetProcessUtilization", 3.0},
      {"nvmlDeviceGetProcessesUtilizationInfo", 3.0},
      {"nvmlDeviceGetVgpuProcessUtilization", 3.0},
      {"nvmlDeviceGetVgpuProcessesUtilizationInfo", 3.0},
      {"nvmlDeviceGetSamples", 0.5},
  };
  for (const char* list : {"Compute", "Graphics", "MPSCompute"}) {
    for (const char* suffix : {"", "_v2", "_v3"}) {
      costs.emplace(std::string("nvmlDeviceGet") + list + "RunningProcesses" + suffix, 0.3);
    }
  }
  return costs;
}

std::optional<CallCosts> call_costs_from_environment() {
  const char* text = std::getenv(kCallCostsVariable);
  if (text == nullptr) return std::nullopt;
  const std::string_view value(text);
  if (value == "typical") return typical_call_costs();
  if (value == "off") return CallCosts{};
  return std::nullopt;
}

double call_cost_ms(const CallCosts& costs, std::string_view function) {
  if (costs.empty()) return 0;
  if (const auto it = costs.find(function); it != costs.end()) return it->second;
  const auto any = costs.find("*");
  return any != costs.end() ? any->second : 0;
}

}  // namespace gpumeter::sim
