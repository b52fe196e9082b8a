#include "recorder/process_figures.h"

#include <array>
#include <set>

#include "core/held_time.h"

namespace gpumeter::recorder {
namespace {

// Every process the device's series know, busy or holding memory.
std::set<ProcessKey> keys_of(const DeviceSeries& device) {
  std::set<ProcessKey> keys;
  for (const auto& [key, series] : device.utilization()) keys.insert(key);
  for (const auto& [key, series] : device.memory()) keys.insert(key);
  return keys;
}

bool left_in(const DeviceSeries& device, const ProcessKey& key, Window window) {
  const auto found = device.memory().find(key);
  if (found == device.memory().end() || found->second.records().empty()) return false;
  const ProcessMemorySample& last = found->second.records().back();
  return last.used_bytes == 0 && last.time_us > window.begin_us && last.time_us <= window.end_us;
}

template <class T>
T or_zero(const Maybe<T>& value) {
  return value ? *value : T{};
}

ProcessFigures figures_of(const Series& series, std::uint32_t index, const DeviceSeries& device,
                          const ProcessKey& key, Window window) {
  ProcessFigures figures{.device = index, .key = key, .span = window};
  const HeldTime held = held_time(series, key, index, window);
  figures.held_seconds = held.seconds;
  if (held.first_us && held.last_us) figures.span = {*held.first_us, *held.last_us};
  const std::array keys{key};
  if (const auto used = usage(series, keys, window)) {
    for (const GpuUsage& gpu : used->gpus) {
      if (gpu.device != index) continue;
      figures.sm_busy_seconds = or_zero(gpu[Engine::sm].busy_seconds);
      figures.peak_memory_bytes = or_zero(gpu.memory.peak_bytes);
      figures.energy_joules = or_zero(gpu.energy.processes_joules);
    }
  }
  figures.left = left_in(device, key, window);
  return figures;
}

}  // namespace

std::vector<ProcessFigures> process_figures(const Series& series, Window window) {
  std::vector<ProcessFigures> all;
  for (const auto& [index, device] : series.devices()) {
    for (const ProcessKey& key : keys_of(device)) {
      ProcessFigures figures = figures_of(series, index, device, key, window);
      if (figures.held_seconds > 0 || figures.sm_busy_seconds > 0 || figures.left) {
        all.push_back(figures);
      }
    }
  }
  return all;
}

}  // namespace gpumeter::recorder
