// SPDX-License-Identifier: MIT
#include "top/status_frame.h"

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "view/humanize.h"
#include "view/sm_unknown.h"

namespace gpumeter::top {
namespace {

using view::Json;

constexpr double kGap = std::numeric_limits<double>::quiet_NaN();

const Json& member(const Json& object, std::string_view key) {
  static const Json kAbsent;
  if (!object.is_object()) return kAbsent;
  const auto found = object.find(key);
  return found == object.end() ? kAbsent : *found;
}

// A figure, or the reason the document gives for its null (no_data when it gives none).
Maybe<double> number(const Json& object, std::string_view key) {
  const Json& value = member(object, key);
  if (value.is_number()) return value.get<double>();
  const Json& reason = member(member(object, "unavailable"), key);
  if (reason.is_string()) {
    if (const auto known = unavailable_from_string(reason.get_ref<const std::string&>()))
      return std::unexpected(*known);
  }
  return std::unexpected(Unavailable::no_data);
}

std::optional<std::string> text(const Json& object, std::string_view key) {
  const Json& value = member(object, key);
  if (!value.is_string()) return std::nullopt;
  return value.get<std::string>();
}

// A whole number that T holds; nullopt for anything else (a negative pid, a fraction).
template <class T>
std::optional<T> whole(const Json& object, std::string_view key) {
  const Json& value = member(object, key);
  if (value.is_number_unsigned()) {
    const auto number = value.get<std::uint64_t>();
    if (std::in_range<T>(number)) return static_cast<T>(number);
  } else if (value.is_number_integer()) {
    const auto number = value.get<std::int64_t>();
    if (std::in_range<T>(number)) return static_cast<T>(number);
  }
  return std::nullopt;
}

std::string id_text(const Json& object, std::string_view key) {
  const auto id = whole<std::int64_t>(object, key);
  return id ? fmt::format("{}", *id) : "?";
}

GpuRow gpu_row(const Json& gpu, std::uint32_t index, const GpuHistory& history) {
  GpuRow row;
  row.gpu = index;
  row.label = fmt::format("{}", index);
  row.name = short_gpu_name(text(gpu, "name").value_or(std::string(view::kNotAvailable)));
  if (const auto status = text(gpu, "status").and_then(view::status_from_key))
    std::tie(row.status, row.tone) = status_words(*status);
  else
    std::tie(row.status, row.tone) = status_words(view::GpuStatus::unknown);
  row.sm_percent = number(gpu, "utilization_gpu_percent");
  row.memory_used_bytes = number(gpu, "memory_used_bytes");
  row.memory_total_bytes = number(gpu, "memory_total_bytes");
  row.power_watts = number(gpu, "power_draw_watts");
  row.power_limit_watts = number(gpu, "power_limit_watts");
  row.temperature_celsius = number(gpu, "temperature_celsius");
  if (const GpuHistory::Histories* h = history.of(index)) {
    row.sm_history = h->sm;
    row.memory_history = h->memory;
    row.power_history = h->power;
    row.temperature_history = h->temperature;
  }
  if (member(gpu, "lost") == true) row.note = kLostGpuNote;
  if (member(member(gpu, "mig"), "enabled") == true) row.note = view::sm_unknown_text("mig");
  return row;
}

GpuRow mig_row(std::uint32_t gpu, const Json& mig) {
  GpuRow row;
  row.kind = RowKind::mig;
  row.gpu = gpu;
  row.label = fmt::format("{}/{}.{}", gpu, id_text(mig, "gpu_instance_id"),
                          id_text(mig, "compute_instance_id"));
  row.name = fmt::format("MIG {}", text(mig, "profile").value_or("?"));
  const Json& pids = member(mig, "pids");
  const bool busy = pids.is_array() && !pids.empty();
  row.status = busy ? "in use" : "free";
  row.tone = busy ? Tone::busy : Tone::free;
  row.sm_percent = std::unexpected(Unavailable::mig);
  row.memory_used_bytes = number(mig, "memory_used_bytes");
  row.memory_total_bytes = number(mig, "memory_total_bytes");
  row.power_watts = std::unexpected(Unavailable::mig);
  row.temperature_celsius = std::unexpected(Unavailable::mig);
  return row;
}

GpuRow vgpu_row(std::uint32_t gpu, const Json& instance) {
  GpuRow row;
  row.kind = RowKind::vgpu;
  row.gpu = gpu;
  row.label = fmt::format("{} vm", gpu);
  row.name =
      short_gpu_name(text(instance, "type_name").value_or(std::string(view::kNotAvailable))) + " " +
      text(instance, "vm_id").value_or("?");
  row.status = "VM";
  row.tone = Tone::busy;
  row.sm_percent = number(instance, "sm_percent");
  row.memory_used_bytes = number(instance, "fb_used_bytes");
  row.power_watts = std::unexpected(Unavailable::not_supported);
  row.temperature_celsius = std::unexpected(Unavailable::not_supported);
  return row;
}

Maybe<RecentEngineUse> engine_use(const Json& process) {
  const Maybe<double> sm = number(process, "sm_percent");
  if (!sm) return std::unexpected(sm.error());
  const double window_seconds = number(process, "utilization_window_seconds").value_or(0.0);
  return RecentEngineUse{.sm_percent = sm,
                         .memory_percent = number(process, "memory_percent"),
                         .encoder_percent = number(process, "encoder_percent"),
                         .decoder_percent = number(process, "decoder_percent"),
                         .window_us = static_cast<TimeUs>(window_seconds * 1e6)};
}

ProcessRow process_row(std::uint32_t gpu, const Json& process, TimeUs now_us) {
  ProcessRow row;
  row.gpu = gpu;
  const Json& mig = member(process, "mig");
  row.gpu_label = mig.is_object() ? fmt::format("{}/{}.{}", gpu, id_text(mig, "gpu_instance_id"),
                                                id_text(mig, "compute_instance_id"))
                                  : fmt::format("{}", gpu);
  row.pid = whole<Pid>(process, "pid").value_or(0);
  row.user = text(process, "user").value_or("?");
  const Json& container = member(process, "container");
  if (const auto runtime = text(container, "runtime"))
    row.container = *runtime + ":" + text(container, "id").value_or("?").substr(0, 12);
  row.command = text(process, "command").value_or(std::string(view::kNotAvailable));
  row.gpu_memory_bytes = number(process, "used_memory_bytes");
  row.use = engine_use(process);
  if (const auto start = whole<TimeUs>(process, "start_time_us")) row.age_us = now_us - *start;
  row.cpu_percent = number(process, "cpu_percent");
  row.rss_bytes = number(process, "rss_bytes");
  return row;
}

void add_gpu(Frame& frame, const Json& gpu, std::uint32_t index, const GpuHistory& history) {
  frame.gpus.push_back(gpu_row(gpu, index, history));
  const Json& mig = member(gpu, "mig");
  if (member(mig, "enabled") == true && member(mig, "devices").is_array()) {
    for (const Json& device : mig["devices"]) frame.gpus.push_back(mig_row(index, device));
  }
  const Json& instances = member(member(gpu, "vgpu"), "instances");
  if (instances.is_array()) {
    for (const Json& instance : instances) frame.gpus.push_back(vgpu_row(index, instance));
  }
  const Json& processes = member(gpu, "processes");
  if (!processes.is_array()) return;
  for (const Json& process : processes)
    frame.processes.push_back(process_row(index, process, frame.time_us));
}

}  // namespace

void add_status_round(GpuHistory& history, const Json& status) {
  const auto time_us = whole<TimeUs>(status, "time_us");
  const Json& gpus = member(status, "gpus");
  if (!time_us || !gpus.is_array() || !history.begin_round(*time_us)) return;
  for (const Json& gpu : gpus) {
    const auto index = whole<std::uint32_t>(gpu, "index");
    if (!index) continue;
    const Maybe<double> used = number(gpu, "memory_used_bytes");
    const Maybe<double> total = number(gpu, "memory_total_bytes");
    history.add(*index, GpuHistory::Point{
                            .sm = number(gpu, "utilization_gpu_percent").value_or(kGap),
                            .memory = used && total && *total > 0 ? 100.0 * *used / *total : kGap,
                            .power = number(gpu, "power_draw_watts").value_or(kGap),
                            .temperature = number(gpu, "temperature_celsius").value_or(kGap)});
  }
}

History history_points(const Json& answer, double scale) {
  History points;
  const Json& averages = member(answer, "avg");
  if (!averages.is_array()) return points;
  for (const Json& average : averages)
    points.push_back(average.is_number() ? average.get<double>() * scale : kGap);
  return points;
}

Frame frame_from_status(const Json& status, const GpuHistory& history, std::string error) {
  Frame frame;
  frame.host = text(status, "host").value_or("?");
  const Json& driver = member(status, "driver");
  frame.driver = driver_text(text(driver, "driver_version"), text(driver, "cuda_driver_version"));
  frame.time_us = whole<TimeUs>(status, "time_us").value_or(0);
  frame.error = std::move(error);
  const Json& gpus = member(status, "gpus");
  if (!gpus.is_array()) return frame;
  for (const Json& gpu : gpus) {
    if (const auto index = whole<std::uint32_t>(gpu, "index")) add_gpu(frame, gpu, *index, history);
  }
  return frame;
}

}  // namespace gpumeter::top
