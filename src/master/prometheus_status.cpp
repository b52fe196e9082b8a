// SPDX-License-Identifier: MIT
#include "master/prometheus_status.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <ctime>
#include <optional>
#include <set>
#include <string_view>

#include "core/metrics.h"

namespace gpumeter::master {
namespace {

// An exported metric and the list document's metric it becomes: value * scale.
struct Mapped {
  std::string_view prometheus;
  DeviceMetric metric;
  double scale;
};

constexpr std::array<Mapped, 13> kMapped{{
    {"gpumeter_gpu_sm_utilization_ratio", DeviceMetric::utilization_gpu, 100},
    {"gpumeter_gpu_memory_utilization_ratio", DeviceMetric::utilization_memory, 100},
    {"gpumeter_gpu_encoder_utilization_ratio", DeviceMetric::utilization_encoder, 100},
    {"gpumeter_gpu_decoder_utilization_ratio", DeviceMetric::utilization_decoder, 100},
    {"gpumeter_gpu_memory_used_bytes", DeviceMetric::memory_used, 1},
    {"gpumeter_gpu_memory_total_bytes", DeviceMetric::memory_total, 1},
    {"gpumeter_gpu_power_watts", DeviceMetric::power_draw, 1},
    {"gpumeter_gpu_power_limit_watts", DeviceMetric::power_limit, 1},
    {"gpumeter_gpu_energy_joules_total", DeviceMetric::energy, 1},
    {"gpumeter_gpu_temperature_celsius", DeviceMetric::temperature, 1},
    {"gpumeter_gpu_sm_clock_hertz", DeviceMetric::clock_sm, 1e-6},
    {"gpumeter_gpu_memory_clock_hertz", DeviceMetric::clock_memory, 1e-6},
    {"gpumeter_gpu_fan_ratio", DeviceMetric::fan_speed, 100},
}};

// What one GPU's series say.
struct GpuReading {
  bool has_info = false;
  std::optional<std::string> uuid, name;
  std::array<std::optional<double>, kDeviceMetricCount> metrics{};
  std::optional<double> processes;
  std::optional<double> up;
  std::set<std::string> users;
};

struct HostReading {
  std::map<unsigned, GpuReading> gpus;
  std::optional<std::string> driver_version;
  double time_seconds = 0;       // of the newest gpumeter_gpu_info sample
  double evaluated_seconds = 0;  // when Prometheus answered, should the above be missing
};

std::optional<std::string> label(const PromSample& sample, const std::string& name) {
  const auto found = sample.labels.find(name);
  if (found == sample.labels.end()) return std::nullopt;
  return found->second;
}

struct Place {
  HostReading* host = nullptr;
  GpuReading* gpu = nullptr;
};

// The host and GPU a sample is about, creating their entries; nulls when the host or gpu
// label is missing, or the gpu label is not an index.
Place place_of(std::map<std::string, HostReading>& hosts, const PromSample& sample) {
  const auto host = label(sample, "host");
  const auto gpu = label(sample, "gpu");
  unsigned index = 0;
  if (!host || !gpu) return {};
  const auto [end, error] = std::from_chars(gpu->data(), gpu->data() + gpu->size(), index);
  if (error != std::errc{} || end != gpu->data() + gpu->size()) return {};
  HostReading& reading = hosts[*host];
  return {&reading, &reading.gpus[index]};
}

void take_series(std::map<std::string, HostReading>& hosts, const PromSample& sample) {
  const auto [host, gpu] = place_of(hosts, sample);
  const auto name = label(sample, "__name__");
  if (gpu == nullptr || !name || std::isnan(sample.value)) return;
  if (*name == "gpumeter_gpu_info") {
    gpu->has_info = true;
    gpu->uuid = label(sample, "uuid");
    gpu->name = label(sample, "name");
    host->evaluated_seconds = sample.time_seconds;
    if (auto driver = label(sample, "driver_version")) host->driver_version = std::move(driver);
  } else if (*name == "gpumeter_gpu_processes") {
    gpu->processes = sample.value;
  } else if (*name == "gpumeter_gpu_up") {
    gpu->up = sample.value;
  }
  for (const Mapped& mapped : kMapped) {
    if (*name == mapped.prometheus) {
      gpu->metrics[static_cast<std::size_t>(mapped.metric)] = sample.value * mapped.scale;
    }
  }
}

std::string status_of(const GpuReading& gpu) {
  if (gpu.up && *gpu.up == 0) return "lost";
  if (!gpu.processes) return "unknown";
  return *gpu.processes > 0 ? "in_use" : "free";
}

Json nullable(const std::optional<std::string>& text, std::string_view key, Json& unavailable) {
  if (text) return *text;
  unavailable[std::string(key)] = "not_supported";
  return nullptr;
}

Json gpu_json(unsigned index, const GpuReading& gpu) {
  Json json;
  Json unavailable = Json::object();
  json["index"] = index;
  json["uuid"] = nullable(gpu.uuid, "uuid", unavailable);
  json["name"] = nullable(gpu.name, "name", unavailable);
  for (const char* key :
       {"serial", "pci_bus_id", "minor_number", "architecture", "compute_capability"}) {
    json[key] = nullable(std::nullopt, key, unavailable);
  }
  json["status"] = status_of(gpu);
  json["lost"] = gpu.up && *gpu.up == 0;
  for (const MetricSpec& spec : device_metrics()) {
    const auto& value = gpu.metrics[static_cast<std::size_t>(spec.id)];
    const std::string key(spec.key);
    if (!value || !std::isfinite(*value)) {
      json[key] = nullable(std::nullopt, key, unavailable);
    } else {
      json[key] = spec.integral ? Json(std::llround(*value)) : Json(*value);
    }
  }
  json["compute_mode"] = nullable(std::nullopt, "compute_mode", unavailable);
  json["persistence_mode"] = nullable(std::nullopt, "persistence_mode", unavailable);
  json["users"] = gpu.users;
  json["processes"] = nullable(std::nullopt, "processes", unavailable);
  json["accounting"] = nullable(std::nullopt, "accounting", unavailable);
  json["mig"] = nullable(std::nullopt, "mig", unavailable);
  json["vgpu"] = nullable(std::nullopt, "vgpu", unavailable);
  json["board"] = nullable(std::nullopt, "board", unavailable);
  json["unavailable"] = std::move(unavailable);
  return json;
}

Json host_json(const std::string& host, const HostReading& reading) {
  const double time = reading.time_seconds > 0 ? reading.time_seconds : reading.evaluated_seconds;
  const auto time_us = static_cast<std::int64_t>(std::llround(time * 1e6));
  const auto seconds = static_cast<std::time_t>(time_us / 1'000'000);
  Json document;
  document["schema_version"] = 1;
  document["host"] = host;
  document["time"] = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(seconds));
  document["time_us"] = time_us;
  document["source"] = "prometheus";
  Json unavailable = Json::object();
  Json driver;
  driver["driver_version"] = nullable(reading.driver_version, "driver_version", unavailable);
  driver["nvml_version"] = nullable(std::nullopt, "nvml_version", unavailable);
  driver["cuda_driver_version"] = nullable(std::nullopt, "cuda_driver_version", unavailable);
  driver["unavailable"] = std::move(unavailable);
  document["driver"] = std::move(driver);
  Json& gpus = document["gpus"] = Json::array();
  for (const auto& [index, gpu] : reading.gpus) {
    if (gpu.has_info) gpus.push_back(gpu_json(index, gpu));
  }
  return document;
}

}  // namespace

std::map<std::string, Json> status_documents(const PrometheusReadings& readings) {
  std::map<std::string, HostReading> hosts;
  for (const PromSample& sample : readings.gpu_series) take_series(hosts, sample);
  for (const PromSample& sample : readings.gpu_times) {
    const auto host = label(sample, "host");
    if (host && hosts.contains(*host) && std::isfinite(sample.value)) {
      hosts[*host].time_seconds = std::max(hosts[*host].time_seconds, sample.value);
    }
  }
  for (const PromSample& sample : readings.users) {
    const auto user = label(sample, "user");
    if (!user) continue;
    if (GpuReading* gpu = place_of(hosts, sample).gpu; gpu != nullptr) gpu->users.insert(*user);
  }
  std::map<std::string, Json> documents;
  for (const auto& [host, reading] : hosts) {
    const bool described =
        std::ranges::any_of(reading.gpus, [](const auto& g) { return g.second.has_info; });
    if (described) documents.emplace(host, host_json(host, reading));
  }
  return documents;
}

}  // namespace gpumeter::master
