// SPDX-License-Identifier: MIT
#include "task/task_json.h"

#include <array>
#include <string_view>

#include "task/usage_json.h"

namespace gpumeter::task {
namespace {

using nlohmann::json;

template <class T>
json optional_json(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json gpu_json(const GpuUsage& usage, const std::map<std::uint32_t, std::string>& uuids,
              std::string_view memory_source) {
  const auto uuid = uuids.find(usage.device);
  json gpu{{"index", usage.device},
           {"uuid", uuid == uuids.end() ? json(nullptr) : json(uuid->second)},
           {"attribution", attribution_name(usage.level)},
           {"unavailable", json::object()}};
  put_engine_figures(gpu, usage, kAllEngines);
  put_memory_and_energy(gpu, usage);
  gpu["memory_source"] = memory_source;
  gpu["sample_period_us"] = usage.confidence.sample_period_us;
  gpu["coverage"] = usage.confidence.coverage;
  gpu["shorter_than_sample_period"] = usage.confidence.shorter_than_sample_period;
  gpu["coarse_bucket_us"] = usage.confidence.coarse_bucket_us;
  gpu["shorter_than_coarse_bucket"] = usage.confidence.shorter_than_coarse_bucket;
  put_bounds_width(gpu, usage);
  gpu["low_confidence"] = usage.confidence.low();
  return gpu;
}

// CPU time over the window's length, in percent of one core (200 for two busy cores).
Maybe<double> cpu_percent(const HostUsage& host, const Window& window) {
  if (!host.cpu_user_seconds) return std::unexpected(host.cpu_user_seconds.error());
  if (!host.cpu_system_seconds) return std::unexpected(host.cpu_system_seconds.error());
  if (window.length_us() <= 0) return std::unexpected(Unavailable::no_data);
  const double seconds = *host.cpu_user_seconds + *host.cpu_system_seconds;
  return 100.0 * seconds * 1e6 / static_cast<double>(window.length_us());
}

json host_json(const TaskFigures& figures) {
  const HostUsage& usage = figures.usage.host;
  json host{{"unavailable", json::object()}};
  put_figure(host, "cpu_user_seconds", usage.cpu_user_seconds);
  put_figure(host, "cpu_system_seconds", usage.cpu_system_seconds);
  put_figure(host, "cpu_percent", cpu_percent(usage, figures.usage.window));
  put_figure(host, "rss_at_start_bytes", figures.rss_at_start_bytes);
  put_figure(host, "rss_at_end_bytes", figures.rss_at_end_bytes);
  put_figure(host, "peak_rss_bytes", usage.peak_rss_bytes);
  host["cpu_source"] = figures.cpu_source;
  host["peak_rss_source"] = figures.peak_rss_source;
  host["complete"] = usage.complete;
  return host;
}

json duration_json(const Task& task) {
  if (!task.end_us) return nullptr;
  return static_cast<double>(*task.end_us - task.begin_us) / 1e6;
}

}  // namespace

std::string_view to_string(TaskState state) noexcept {
  switch (state) {
    case TaskState::open: return "open";
    case TaskState::ending: return "ending";
    case TaskState::ended: return "ended";
  }
  return "ended";
}

json figures_json(const TaskFigures& figures) {
  json gpus = json::array();
  for (const GpuUsage& gpu : figures.usage.gpus) {
    const bool at_edges = figures.gpu_memory_at_edges.contains(gpu.device);
    gpus.push_back(gpu_json(gpu, figures.gpu_uuids, at_edges ? "edges" : "series"));
  }
  return json{{"gpus", std::move(gpus)}, {"host", host_json(figures)}};
}

json task_json(const Task& task) {
  json record{
      {"task", task.id},
      {"name", task.name},
      {"labels", task.labels},
      {"pid", task.owner.pid},
      {"process_start_time_us",
       task.owner.start_time_us == 0 ? json(nullptr) : json(task.owner.start_time_us)},
      {"uid", optional_json(task.uid)},
      {"user", optional_json(task.user)},
      {"state", to_string(task.state)},
      {"abandoned", task.abandoned},
      {"begin_time_us", task.begin_us},
      {"end_time_us", optional_json(task.end_us)},
      {"duration_seconds", duration_json(task)},
      {"usage", task.figures ? figures_json(*task.figures) : json(nullptr)},
  };
  if (task.figures_error) record["usage_error"] = *task.figures_error;
  return record;
}

}  // namespace gpumeter::task
