// SPDX-License-Identifier: MIT
#include "task/edge_figures.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace gpumeter::task {
namespace {

// The CPU times at both edges from one kind of reading, with its source's name.
std::optional<std::pair<CpuTimes, CpuTimes>> cpu_edges(const Task& task, std::string_view& source) {
  if (task.begin_edge.reported && task.end_edge.reported) {
    source = "client";
    return std::pair{*task.begin_edge.reported, *task.end_edge.reported};
  }
  if (task.begin_edge.read && task.end_edge.read) {
    source = "procfs";
    return std::pair{*task.begin_edge.read, *task.end_edge.read};
  }
  return std::nullopt;
}

double seconds_between(std::int64_t begin_us, std::int64_t end_us) {
  // CPU counters never run backwards; a client whose report did is read as no time.
  return static_cast<double>(std::max<std::int64_t>(end_us - begin_us, 0)) / kUsPerSecond;
}

// What the process lists said at an edge of the GPU; absent when they were not read there.
std::optional<std::uint64_t> held_on(const Maybe<GpuMemoryHeld>& held, std::uint32_t device) {
  if (!held) return std::nullopt;
  const auto it = held->find(device);
  if (it == held->end()) return std::nullopt;
  return it->second;
}

// Each GPU's memory at start and at end from the process lists read at both edges; the peak
// is at least both (the rounds between may have seen neither).
void apply_gpu_memory(const Task& task, TaskFigures& figures) {
  for (GpuUsage& gpu : figures.usage.gpus) {
    const auto at_start = held_on(task.begin_edge.gpu_memory, gpu.device);
    const auto at_end = held_on(task.end_edge.gpu_memory, gpu.device);
    if (!at_start || !at_end) continue;
    gpu.memory.at_start_bytes = *at_start;
    gpu.memory.at_end_bytes = *at_end;
    gpu.memory.peak_bytes = std::max({gpu.memory.peak_bytes.value_or(0), *at_start, *at_end});
    figures.gpu_memory_at_edges.insert(gpu.device);
  }
}

}  // namespace

void apply_edges(const Task& task, TaskFigures& figures) {
  apply_gpu_memory(task, figures);
  HostUsage& host = figures.usage.host;
  std::string_view source = "series";
  if (const auto cpu = cpu_edges(task, source)) {
    host.cpu_user_seconds = seconds_between(cpu->first.user_us, cpu->second.user_us);
    host.cpu_system_seconds = seconds_between(cpu->first.system_us, cpu->second.system_us);
    host.complete = true;
  }
  figures.cpu_source = source;
  figures.rss_at_start_bytes = task.begin_edge.rss_bytes;
  figures.rss_at_end_bytes = task.end_edge.rss_bytes;
  if (task.peak_rss_bytes && task.end_edge.rss_bytes) {
    std::uint64_t peak = std::max(*task.peak_rss_bytes, *task.end_edge.rss_bytes);
    if (task.begin_edge.rss_bytes) peak = std::max(peak, *task.begin_edge.rss_bytes);
    host.peak_rss_bytes = peak;
    figures.peak_rss_source = "high_water_mark";
  }
}

}  // namespace gpumeter::task
