// SPDX-License-Identifier: MIT
#include "cli/available_fleet.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "cli/master_options.h"
#include "master/http_client.h"
#include "master/url.h"
#include "net/token_file.h"

namespace gpumeter::cli {
namespace {

using Json = nlohmann::json;

// One fleet document of thousands of nodes runs to tens of MiB (docs/benchmarks.md).
constexpr std::size_t kMaxFleetBytes = std::size_t{256} * 1024 * 1024;

Maybe<double> number(const Json& gpu, const char* key) {
  const auto found = gpu.find(key);
  if (found == gpu.end() || !found->is_number()) return std::unexpected(Unavailable::error);
  return found->get<double>();
}

// What select_gpus needs of a GPU, from its entry in a status document (schemas/list).
Device device_of(const Json& gpu) {
  Device device;
  device.identity.index = gpu.value("index", 0U);
  if (gpu.contains("uuid") && gpu["uuid"].is_string()) device.identity.uuid = gpu["uuid"];
  device.lost = gpu.value("lost", false);
  device.state[DeviceMetric::memory_used] = number(gpu, "memory_used_bytes");
  device.state[DeviceMetric::memory_total] = number(gpu, "memory_total_bytes");
  device.state[DeviceMetric::utilization_gpu] = number(gpu, "utilization_gpu_percent");
  device.state[DeviceMetric::power_draw] = number(gpu, "power_draw_watts");
  if (gpu.value("compute_mode", "") == "prohibited")
    device.state.compute_mode = ComputeMode::prohibited;
  if (gpu.contains("mig") && gpu["mig"].is_object() && gpu["mig"].value("enabled", false)) {
    device.mig = MigState{.enabled = true};
  }
  if (gpu.contains("vgpu") && gpu["vgpu"].is_object()) device.vgpu = VgpuHost{};
  return device;
}

double value_or_zero(const Maybe<double>& value) {
  return value ? *value : 0.0;
}

}  // namespace

std::expected<FleetChoice, Error> choose_fleet_gpus(const std::string& text,
                                                    const SelectionCriteria& criteria) {
  const Json document = Json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.is_object() || !document.contains("nodes") ||
      !document["nodes"].is_array()) {
    return std::unexpected(invalid_input("the answer is not a fleet document (schemas/fleet)"));
  }
  FleetChoice choice;
  for (const Json& node : document["nodes"]) {
    if (!node.is_object() || node.value("state", "") != "ok" || !node.contains("status") ||
        !node["status"].is_object() || !node["status"].contains("gpus")) {
      ++choice.nodes_skipped;
      continue;
    }
    ++choice.nodes;
    GpuReading reading;
    for (const Json& gpu : node["status"]["gpus"]) reading.devices.push_back(device_of(gpu));
    choice.gpus += reading.devices.size();
    const Selection selection = select_gpus(reading, criteria);
    for (const std::size_t i : selection.eligible) {
      const Device& device = reading.devices[i];
      choice.free.push_back(
          {.node = node.value("name", ""),
           .index = device.identity.index,
           .uuid = device.identity.uuid.value_or(""),
           .free_bytes = value_or_zero(device.state[DeviceMetric::memory_total]) -
                         value_or_zero(device.state[DeviceMetric::memory_used]),
           .power_watts = value_or_zero(device.state[DeviceMetric::power_draw]),
           .power_limit_watts = value_or_zero(device.state[DeviceMetric::power_limit])});
    }
  }
  // Within a node select_gpus has ordered them; across the fleet, the same order.
  switch (criteria.order) {
    case GpuOrder::free_memory:
      std::ranges::stable_sort(choice.free, std::greater<>{}, &FleetGpu::free_bytes);
      break;
    case GpuOrder::power:
      std::ranges::stable_sort(choice.free, std::less<>{}, &FleetGpu::power_watts);
      break;
    case GpuOrder::priority:
      std::ranges::stable_sort(choice.free, [](const FleetGpu& a, const FleetGpu& b) {
        return std::pair(a.power_limit_watts, a.free_bytes) >
               std::pair(b.power_limit_watts, b.free_bytes);
      });
      break;
    case GpuOrder::index: break;
  }
  return choice;
}

int run_fleet_available(const Output& output, const FleetAvailableRequest& request,
                        std::span<const std::string>) {
  const auto fail = [&](const std::string& message) {
    output.err << "gpumeter available --fleet: " << message << '\n';
    return 2;
  };
  auto url = master::parse_agent_url(request.url, kMasterDefaultPort);
  if (!url) return fail(url.error().message);
  master::ClientOptions options{.timeout = std::chrono::seconds(30)};
  if (request.token_file) {
    auto token = net::read_token_file(*request.token_file);
    if (!token) return fail(token.error().message);
    options.token = std::move(*token);
  }
  master::HttpClient client(1);
  const master::HttpResult answer = client.get({.url = *url,
                                                .target = url->path("/api/v1/fleet"),
                                                .options = options,
                                                .limits = {.max_body_bytes = kMaxFleetBytes}});
  const std::string where = url->origin() + url->base_path;
  if (!answer) return fail(fmt::format("{}: {}", where, answer.error().message));
  if (answer->status != 200) return fail(fmt::format("{} answered HTTP {}", where, answer->status));
  auto choice = choose_fleet_gpus(answer->body, request.criteria);
  if (!choice) return fail(fmt::format("{}: {}", where, choice.error().message));
  if (choice->free.empty()) {
    output.err << fmt::format(
        "gpumeter available --fleet: no free GPU among {} GPUs of {} nodes{}\n", choice->gpus,
        choice->nodes,
        choice->nodes_skipped > 0
            ? fmt::format(" ({} more nodes without a fresh reading)", choice->nodes_skipped)
            : std::string{});
    return 1;
  }
  const std::size_t count =
      request.limit > 0 ? std::min(request.limit, choice->free.size()) : choice->free.size();
  for (std::size_t i = 0; i < count; ++i) {
    const FleetGpu& gpu = choice->free[i];
    output.out << gpu.node << ':' << (request.uuid ? gpu.uuid : fmt::format("{}", gpu.index))
               << '\n';
  }
  return 0;
}

}  // namespace gpumeter::cli
