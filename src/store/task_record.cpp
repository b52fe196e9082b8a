// SPDX-License-Identifier: MIT
#include "store/task_record.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string_view>

namespace gpumeter::store {
namespace {

using nlohmann::json;

// The protocol's key prefixes, indexed by Engine.
constexpr std::array<std::string_view, kEngineCount> kEnginePrefixes{
    "sm", "memory_controller", "encoder", "decoder", "jpeg", "ofa"};

template <class T>
json optional_json(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

template <class T>
std::optional<T> read_optional(const json& object, std::string_view key) {
  const auto found = object.find(key);
  if (found == object.end() || found->is_null()) return std::nullopt;
  return found->get<T>();
}

TaskGpuFigures gpu_figures(const GpuUsage& usage,
                           const std::map<std::uint32_t, std::string>& gpu_uuids) {
  TaskGpuFigures gpu{.index = usage.device,
                     .device_level = usage.level == AttributionLevel::device};
  if (const auto uuid = gpu_uuids.find(usage.device); uuid != gpu_uuids.end())
    gpu.uuid = uuid->second;
  for (std::size_t engine = 0; engine < kEngineCount; ++engine) {
    gpu.busy_seconds[engine] = value_of(usage.engines[engine].busy_seconds);
    gpu.average_percent[engine] = value_of(usage.engines[engine].average_percent);
  }
  gpu.memory_at_start_bytes = value_of(usage.memory.at_start_bytes);
  gpu.memory_at_end_bytes = value_of(usage.memory.at_end_bytes);
  gpu.memory_peak_bytes = value_of(usage.memory.peak_bytes);
  gpu.energy_joules = value_of(usage.energy.processes_joules);
  gpu.energy_device_joules = value_of(usage.energy.device_joules);
  gpu.energy_other_processes_joules = value_of(usage.energy.other_processes_joules);
  gpu.energy_idle_joules = value_of(usage.energy.idle_joules);
  gpu.sample_period_us = usage.confidence.sample_period_us;
  gpu.coverage = usage.confidence.coverage;
  gpu.shorter_than_sample_period = usage.confidence.shorter_than_sample_period;
  gpu.low_confidence = usage.confidence.low();
  return gpu;
}

json gpu_json(const TaskGpuFigures& gpu) {
  json object{{"index", gpu.index},
              {"uuid", optional_json(gpu.uuid)},
              {"attribution", gpu.device_level ? "device" : "process"}};
  for (std::size_t engine = 0; engine < kEngineCount; ++engine) {
    const std::string prefix(kEnginePrefixes[engine]);
    object[prefix + "_percent"] = optional_json(gpu.average_percent[engine]);
    object[prefix + "_busy_seconds"] = optional_json(gpu.busy_seconds[engine]);
  }
  object["memory_at_start_bytes"] = optional_json(gpu.memory_at_start_bytes);
  object["memory_at_end_bytes"] = optional_json(gpu.memory_at_end_bytes);
  object["memory_peak_bytes"] = optional_json(gpu.memory_peak_bytes);
  object["energy_joules"] = optional_json(gpu.energy_joules);
  object["energy_device_joules"] = optional_json(gpu.energy_device_joules);
  object["energy_other_processes_joules"] = optional_json(gpu.energy_other_processes_joules);
  object["energy_idle_joules"] = optional_json(gpu.energy_idle_joules);
  object["sample_period_us"] = gpu.sample_period_us;
  object["coverage"] = gpu.coverage;
  object["shorter_than_sample_period"] = gpu.shorter_than_sample_period;
  object["low_confidence"] = gpu.low_confidence;
  return object;
}

TaskGpuFigures gpu_from_json(const json& object) {
  TaskGpuFigures gpu{.index = object.at("index").get<std::uint32_t>()};
  gpu.uuid = read_optional<std::string>(object, "uuid");
  // Rows written before device-level figures existed are the processes' own.
  gpu.device_level = object.value("attribution", std::string("process")) == "device";
  for (std::size_t engine = 0; engine < kEngineCount; ++engine) {
    const std::string prefix(kEnginePrefixes[engine]);
    gpu.average_percent[engine] = read_optional<double>(object, prefix + "_percent");
    gpu.busy_seconds[engine] = read_optional<double>(object, prefix + "_busy_seconds");
  }
  gpu.memory_at_start_bytes = read_optional<std::uint64_t>(object, "memory_at_start_bytes");
  gpu.memory_at_end_bytes = read_optional<std::uint64_t>(object, "memory_at_end_bytes");
  gpu.memory_peak_bytes = read_optional<std::uint64_t>(object, "memory_peak_bytes");
  gpu.energy_joules = read_optional<double>(object, "energy_joules");
  gpu.energy_device_joules = read_optional<double>(object, "energy_device_joules");
  gpu.energy_other_processes_joules =
      read_optional<double>(object, "energy_other_processes_joules");
  gpu.energy_idle_joules = read_optional<double>(object, "energy_idle_joules");
  gpu.sample_period_us = object.value("sample_period_us", TimeUs{0});
  gpu.coverage = object.value("coverage", 0.0);
  gpu.shorter_than_sample_period = object.value("shorter_than_sample_period", false);
  gpu.low_confidence = object.value("low_confidence", false);
  return gpu;
}

}  // namespace

void set_figures(TaskRecord& record, const Usage& usage,
                 const std::map<std::uint32_t, std::string>& gpu_uuids) {
  record.gpus.clear();
  for (const GpuUsage& gpu : usage.gpus) record.gpus.push_back(gpu_figures(gpu, gpu_uuids));
  record.cpu_user_seconds = value_of(usage.host.cpu_user_seconds);
  record.cpu_system_seconds = value_of(usage.host.cpu_system_seconds);
  record.peak_rss_bytes = value_of(usage.host.peak_rss_bytes);
  record.host_complete = usage.host.complete;
}

std::expected<void, Error> validate(const TaskRecord& record) {
  if (record.name.empty())
    return std::unexpected(Error{ErrorCode::invalid_input, "task not stored: it has no name"});
  if (record.end_us < record.begin_us) {
    return std::unexpected(Error{
        ErrorCode::invalid_input,
        fmt::format("task {} ({}) not stored: it ends before it begins", record.id, record.name)});
  }
  return {};
}

std::string gpus_json(const std::vector<TaskGpuFigures>& gpus) {
  json array = json::array();
  for (const TaskGpuFigures& gpu : gpus) array.push_back(gpu_json(gpu));
  return array.dump();
}

std::expected<std::vector<TaskGpuFigures>, Error> parse_gpus_json(const std::string& text) {
  const json array = json::parse(text, nullptr, false);
  if (!array.is_array()) {
    return std::unexpected(
        Error{ErrorCode::invalid_input, "tasks.gpus is not a JSON array of GPU figures"});
  }
  std::vector<TaskGpuFigures> gpus;
  try {
    for (const json& object : array) gpus.push_back(gpu_from_json(object));
  } catch (const json::exception& error) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              fmt::format("tasks.gpus holds a bad GPU entry: {}", error.what())});
  }
  return gpus;
}

}  // namespace gpumeter::store
