// SPDX-License-Identifier: MIT
#include "core/selection.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace gpumeter {
namespace {

using enum DeviceMetric;

std::optional<Exclusion> exclusion_of(const Device& device, const SelectionCriteria& criteria) {
  if (device.lost) return Exclusion::lost;
  const DeviceState& state = device.state;
  if (state.compute_mode == ComputeMode::prohibited) return Exclusion::compute_prohibited;
  if (device.mig && device.mig->enabled) return Exclusion::mig_mode;
  if (device.vgpu) return Exclusion::vgpu_host;
  const std::optional<double> memory = memory_used_percent(state);
  if (!memory) return Exclusion::memory_unknown;
  if (*memory > criteria.max_memory_percent) return Exclusion::memory_busy;
  const Maybe<double>& utilization = state[utilization_gpu];
  if (utilization && *utilization > criteria.max_utilization_percent) {
    return Exclusion::utilization_busy;
  }
  return std::nullopt;
}

constexpr double kLast = std::numeric_limits<double>::max();

// Most free memory first: its negation, unknown last.
double free_memory_key(const DeviceState& state) {
  const Maybe<double>& total = state[memory_total];
  const Maybe<double>& used = state[memory_used];
  return total && used ? -(*total - *used) : kLast;
}

// The sort key for an order, compared in turn: smaller sorts first. Unknown values sort last.
std::pair<double, double> order_key(const Device& device, GpuOrder order) {
  const DeviceState& state = device.state;
  switch (order) {
    case GpuOrder::index: return {static_cast<double>(device.identity.index), 0.0};
    case GpuOrder::free_memory: return {free_memory_key(state), 0.0};
    case GpuOrder::power: return {state[power_draw].value_or(kLast), 0.0};
    case GpuOrder::priority: {
      const Maybe<double>& limit = state[power_limit];
      return {limit ? -*limit : kLast, free_memory_key(state)};
    }
  }
  return {kLast, kLast};
}

}  // namespace

std::optional<double> memory_used_percent(const DeviceState& state) {
  const Maybe<double>& total = state[memory_total];
  const Maybe<double>& used = state[memory_used];
  if (!total || !used || *total <= 0.0) return std::nullopt;
  return 100.0 * *used / *total;
}

Selection select_gpus(const GpuReading& reading, const SelectionCriteria& criteria) {
  Selection selection;
  const std::vector<Device>& devices = reading.devices;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (auto reason = exclusion_of(devices[i], criteria)) {
      selection.excluded.push_back({.device = i, .reason = *reason});
    } else {
      selection.eligible.push_back(i);
    }
  }
  std::ranges::stable_sort(selection.eligible, {},
                           [&](std::size_t i) { return order_key(devices[i], criteria.order); });
  return selection;
}

namespace {

bool mig_free(const MigDevice& mig, const SelectionCriteria& criteria) {
  if (!mig.processes || !mig.processes->empty()) return false;
  if (!mig.memory_used_bytes || !mig.memory_total_bytes || *mig.memory_total_bytes <= 0.0)
    return false;
  return 100.0 * *mig.memory_used_bytes / *mig.memory_total_bytes <= criteria.max_memory_percent;
}

}  // namespace

MigSelection select_mig_devices(const GpuReading& reading, const SelectionCriteria& criteria) {
  MigSelection selection;
  for (std::size_t i = 0; i < reading.devices.size(); ++i) {
    const Device& device = reading.devices[i];
    if (device.lost || !device.mig || !device.mig->enabled) continue;
    for (std::size_t k = 0; k < device.mig->devices.size(); ++k) {
      if (mig_free(device.mig->devices[k], criteria))
        selection.eligible.push_back({i, k});
      else
        ++selection.busy;
    }
  }
  return selection;
}

}  // namespace gpumeter
