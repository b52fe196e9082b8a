// SPDX-License-Identifier: MIT
#include "run/json.h"

#include <array>
#include <string_view>

#include "task/usage_json.h"
#include "view/humanize.h"

namespace gpumeter::run {

using view::Json;
namespace {

using task::put_figure;

// `run` reports the engines its summary shows; JPEG and OFA are left to the task protocol.
constexpr std::array kRunEngines{Engine::sm, Engine::memory, Engine::encoder, Engine::decoder};

template <class T>
Json or_null(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json exit_json(const RunExit& exit) {
  return Json{{"status", exit.status},
              {"code", or_null(exit.code)},
              {"signal", or_null(exit.signal)},
              {"signal_name", exit.signal ? Json(signal_name(*exit.signal)) : Json(nullptr)},
              {"core_dumped", exit.core_dumped}};
}

Json limits_json(const host::Limits& limits) {
  const auto cpu = limits.cpu;
  return Json{{"cpu_quota_us", cpu ? Json(cpu->quota_us) : Json(nullptr)},
              {"cpu_period_us", cpu ? Json(cpu->period_us) : Json(nullptr)},
              {"cpuset", or_null(limits.cpuset)},
              {"memory_bytes", or_null(limits.memory_bytes)}};
}

Json cgroup_json(const std::optional<RunCgroupInfo>& cgroup) {
  if (!cgroup) return nullptr;
  Json out{{"version", cgroup->version == host::CgroupVersion::v2 ? 2 : 1},
           {"path", cgroup->path.string()},
           {"unavailable", Json::object()}};
  put_figure(out, "memory_peak_bytes", cgroup->memory_peak_bytes);
  return out;
}

Json gpu_json(const RunGpu& gpu) {
  Json out{{"index", gpu.usage.device}, {"unavailable", Json::object()}};
  put_figure(out, "name", gpu.name);
  put_figure(out, "uuid", gpu.uuid);
  out["attribution"] = task::attribution_name(gpu.usage.level);
  task::put_engine_figures(out, gpu.usage, kRunEngines);
  task::put_memory_and_energy(out, gpu.usage);
  out["sample_period_us"] = gpu.usage.confidence.sample_period_us;
  out["coverage"] = gpu.usage.confidence.coverage;
  out["shorter_than_sample_period"] = gpu.usage.confidence.shorter_than_sample_period;
  out["coarse_bucket_us"] = gpu.usage.confidence.coarse_bucket_us;
  task::put_bounds_width(out, gpu.usage);
  out["low_confidence"] = gpu.usage.confidence.low();
  return out;
}

}  // namespace

Json run_json(const RunResult& r) {
  Json gpus = Json::array();
  for (const RunGpu& gpu : r.gpus) gpus.push_back(gpu_json(gpu));
  return Json{
      {"schema_version", kRunSchemaVersion},
      {"command", r.command},
      {"host", r.hostname},
      {"interval_ms", r.interval.count()},
      {"start_time", view::iso8601_utc(r.start_us)},
      {"start_time_us", r.start_us},
      {"end_time_us", r.end_us},
      {"wall_seconds", r.wall_seconds},
      {"exit", exit_json(r.exit)},
      {"cpu_user_seconds", r.cpu_user_seconds},
      {"cpu_system_seconds", r.cpu_system_seconds},
      {"max_rss_bytes", r.max_rss_bytes},
      {"processes", r.processes},
      {"cgroup", cgroup_json(r.cgroup)},
      {"limits", limits_json(r.limits)},
      {"gpu_source", r.gpu_source.empty() ? Json(nullptr) : Json(r.gpu_source)},
      {"gpu_error", or_null(r.gpu_error)},
      {"gpus_seen", r.gpus_seen},
      {"gpus", std::move(gpus)},
  };
}

}  // namespace gpumeter::run
