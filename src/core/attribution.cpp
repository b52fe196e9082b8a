// SPDX-License-Identifier: MIT
#include "core/attribution.h"

#include <algorithm>

#include "core/attribution_parts.h"

namespace gpumeter {
namespace {

// Whether any process of the set has GPU samples (utilisation or memory) on the device. A
// task's set is one process or a few; the device's series hold every process of the horizon.
bool used_by(const DeviceSeries& device, KeySet keys) {
  return std::ranges::any_of(keys, [&device](const ProcessKey& key) {
    return device.utilization().contains(key) || device.memory().contains(key);
  });
}

}  // namespace

bool contains(KeySet keys, const ProcessKey& key) {
  return std::ranges::binary_search(keys, key);
}

std::expected<Usage, Error> usage(const Series& series, std::span<const ProcessKey> processes,
                                  Window window, EdgeRule rule) {
  if (window.end_us <= window.begin_us) {
    return std::unexpected(
        Error{ErrorCode::invalid_input, "the window's end must come after its beginning"});
  }
  std::vector<ProcessKey> keys(processes.begin(), processes.end());
  std::ranges::sort(keys);
  const auto [first, last] = std::ranges::unique(keys);
  keys.erase(first, last);

  Usage result{.window = window};
  for (const auto& [index, device] : series.devices()) {
    if (device_level(device, window)) {
      // No process's memory known on the device: its lists could not be read, so the set may
      // have used it.
      if (used_by(device, keys) || device.memory().empty())
        result.gpus.push_back(device_level_usage(device, index, keys, window, rule));
    } else if (used_by(device, keys)) {
      result.gpus.push_back(gpu_usage(device, index, keys, window, rule));
    }
  }
  result.host = host_usage(series, keys, window);
  return result;
}

}  // namespace gpumeter
