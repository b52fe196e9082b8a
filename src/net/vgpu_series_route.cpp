// SPDX-License-Identifier: MIT
#include "net/vgpu_series_route.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "net/query_params.h"
#include "net/response.h"
#include "view/json.h"

namespace gpumeter::net {
namespace {

struct SeriesRequest {
  std::string gpu;
  std::string vgpu;
  TimeUs since_us = std::numeric_limits<TimeUs>::min();
  TimeUs until_us = std::numeric_limits<TimeUs>::max();
};

std::expected<SeriesRequest, Error> parse(const httplib::Request& request, TimeUs now_us) {
  SeriesRequest parsed;
  auto gpu = query_param(request, "gpu");
  if (!gpu) return std::unexpected(bad_param("gpu", "required: a GPU index or UUID"));
  auto vgpu = query_param(request, "vgpu");
  if (!vgpu) return std::unexpected(bad_param("vgpu", "required: an instance UUID or id"));
  parsed.gpu = std::move(*gpu);
  parsed.vgpu = std::move(*vgpu);
  auto since = time_param(request, "since", parsed.since_us, now_us);
  if (!since) return std::unexpected(std::move(since.error()));
  auto until = time_param(request, "until", now_us, now_us);
  if (!until) return std::unexpected(std::move(until.error()));
  if (*until <= *since) return std::unexpected(bad_param("until", "not after since"));
  parsed.since_us = *since;
  parsed.until_us = *until;
  return parsed;
}

// The GPU `selector` names in the snapshot: an index, else a UUID.
const Device* find_device(const Snapshot& snapshot, const std::string& selector) {
  std::uint32_t index = 0;
  const auto [end, error] =
      std::from_chars(selector.data(), selector.data() + selector.size(), index);
  const bool by_index = error == std::errc{} && end == selector.data() + selector.size();
  for (const Device& device : snapshot.gpus.devices) {
    const auto& uuid = device.identity.uuid;
    if (by_index ? device.identity.index == index : (uuid && *uuid == selector)) return &device;
  }
  return nullptr;
}

// The records of [since, until) as columns: Unix seconds, each engine's percent and the
// framebuffer, null where the record has no figure.
view::Json columns(const RingBuffer<VgpuRecord>& records, const SeriesRequest& request) {
  view::Json time = view::Json::array();
  std::array<view::Json, kEngineCount> engines;
  engines.fill(view::Json::array());
  view::Json framebuffer = view::Json::array();
  for (std::size_t i = records.lower_bound(request.since_us); i < records.size(); ++i) {
    const VgpuRecord& record = records[i];
    if (record.time_us >= request.until_us) break;
    time.push_back(static_cast<double>(record.time_us) / 1e6);
    for (std::size_t e = 0; e < kEngineCount; ++e)
      engines[e].push_back(view::nullable(record[static_cast<Engine>(e)]));
    framebuffer.push_back(view::nullable(record.framebuffer()));
  }
  return view::Json{{"time", std::move(time)},
                    {"sm_percent", std::move(engines[0])},
                    {"memory_percent", std::move(engines[1])},
                    {"encoder_percent", std::move(engines[2])},
                    {"decoder_percent", std::move(engines[3])},
                    {"jpeg_percent", std::move(engines[4])},
                    {"ofa_percent", std::move(engines[5])},
                    {"fb_used_bytes", std::move(framebuffer)}};
}

void answer(const Sampler& sampler, const SeriesRequest& request, const Device& device,
            httplib::Response& response) {
  std::optional<view::Json> document;
  sampler.inspect_vgpu([&](const VgpuSeries& series) {
    const auto* found = series.find(device.identity.index, request.vgpu);
    if (found == nullptr) return;
    const auto& [key, entry] = *found;
    document = view::Json{
        {"schema_version", 1},
        {"gpu",
         {{"index", device.identity.index},
          {"uuid", device.identity.uuid ? view::Json(*device.identity.uuid) : view::Json()}}},
        {"vgpu",
         {{"id", key.id},
          {"uuid", view::text_or_null(key.uuid)},
          {"vm_id", view::nullable(entry.labels.vm_id)},
          {"type_name", view::nullable(entry.labels.type_name)}}}};
    document->update(columns(entry.records, request));
  });
  if (!document) {
    return reply_error(response, 404,
                       fmt::format("vgpu: no instance \"{}\" in the recent series of GPU {}",
                                   request.vgpu, device.identity.index));
  }
  reply_json(response, *document);
}

}  // namespace

void add_vgpu_series_route(HttpServer& server, const Sampler& sampler,
                           std::function<TimeUs()> now_us) {
  server.get("/api/v1/vgpu/series",
             [&sampler, now_us = std::move(now_us)](const httplib::Request& request,
                                                    httplib::Response& response) {
               const auto snapshot = sampler.snapshot();
               if (!snapshot)
                 return reply_error(response, 503, "no sample yet: the sampler is starting");
               const auto parsed = parse(request, now_us());
               if (!parsed) return reply_error(response, 400, parsed.error().message);
               const Device* device = find_device(*snapshot, parsed->gpu);
               if (device == nullptr)
                 return reply_error(response, 400,
                                    fmt::format("gpu: no GPU \"{}\" on this machine", parsed->gpu));
               answer(sampler, *parsed, *device, response);
             });
}

}  // namespace gpumeter::net
