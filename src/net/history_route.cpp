// SPDX-License-Identifier: MIT
#include "net/history_route.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <utility>

#include "net/history_buckets.h"
#include "net/history_mig.h"
#include "net/history_request.h"
#include "net/request_deadline.h"
#include "net/response.h"
#include "store/gauges.h"
#include "store/history.h"

namespace gpumeter::net {
namespace {

struct Gpu {
  std::uint32_t index = 0;
  std::optional<std::string> uuid;
};

// The GPU `selector` names in the snapshot: an index, else a UUID.
std::optional<Gpu> find_gpu(const Snapshot& snapshot, const std::string& selector) {
  std::uint32_t index = 0;
  const auto [end, error] =
      std::from_chars(selector.data(), selector.data() + selector.size(), index);
  const bool by_index = error == std::errc{} && end == selector.data() + selector.size();
  for (const Device& device : snapshot.gpus.devices) {
    const auto& uuid = device.identity.uuid;
    if (by_index ? device.identity.index == index : (uuid && *uuid == selector)) {
      return Gpu{.index = device.identity.index,
                 .uuid = uuid ? std::optional(*uuid) : std::nullopt};
    }
  }
  return std::nullopt;
}

// The figure of a sample the series keep in memory; absent for a metric they do not keep.
std::optional<Maybe<double>> figure(const DeviceRecord& record, DeviceMetric metric) {
  switch (metric) {
    case DeviceMetric::utilization_gpu: return record.utilization_gpu_percent();
    case DeviceMetric::utilization_memory: return record.utilization_memory_percent();
    case DeviceMetric::memory_used: return record.memory_used_bytes();
    case DeviceMetric::power_draw: return record.power_watts();
    case DeviceMetric::temperature: return record.temperature_celsius();
    default: return std::nullopt;
  }
}

// Adds the samples in memory; returns the time from which memory holds the GPU's samples
// (the store answers for what lies before), or the window's end when it holds none.
TimeUs add_memory(const Sampler& sampler, const Gpu& gpu, const HistoryRequest& request,
                  HistoryBuckets& buckets) {
  TimeUs from_us = request.until_us;
  sampler.inspect([&](const Series& series) {
    const DeviceSeries* device = series.device(gpu.index);
    if (device == nullptr || device->samples().empty()) return;
    if (!figure(device->samples().front(), request.metric)) return;
    const auto& samples = device->samples();
    from_us = std::min(from_us, samples.front().time_us);
    for (std::size_t i = samples.lower_bound(request.since_us); i < samples.size(); ++i) {
      const DeviceRecord& record = samples[i];
      if (record.time_us >= request.until_us) break;
      const Maybe<double> value = *figure(record, request.metric);
      if (value)
        buckets.add(
            Reading{.time_us = record.time_us, .min = *value, .avg = *value, .max = *value});
    }
  });
  return from_us;
}

Tier tier_of(store::Resolution resolution) {
  switch (resolution) {
    case store::Resolution::samples: return Tier::samples;
    case store::Resolution::minutes: return Tier::minutes;
    case store::Resolution::hours: return Tier::hours;
  }
  return Tier::hours;
}

std::expected<void, Error> add_stored(store::Store& store, const Gpu& gpu,
                                      const HistoryRequest& request, TimeUs until_us,
                                      HistoryBuckets& buckets) {
  const auto* gauge = std::ranges::find(store::kGauges, request.metric, &store::Gauge::metric);
  for (const auto resolution :
       {store::Resolution::samples, store::Resolution::minutes, store::Resolution::hours}) {
    auto rows = store::device_series(store, {.resolution = resolution,
                                             .since_us = request.since_us,
                                             .until_us = until_us,
                                             .uuid = gpu.uuid});
    if (!rows) return std::unexpected(std::move(rows.error()));
    for (const store::DeviceSeriesRow& row : *rows) {
      const store::GaugeStats& stats = row.*(gauge->stats);
      if (!stats.avg) continue;
      buckets.add(Reading{.time_us = row.time_us,
                          .min = stats.min.value_or(*stats.avg),
                          .avg = *stats.avg,
                          .max = stats.max.value_or(*stats.avg),
                          .weight = std::max<std::int64_t>(row.samples, 1),
                          .tier = tier_of(resolution)});
    }
  }
  return {};
}

void answer(const HistorySources& sources, const httplib::Request& request,
            httplib::Response& response) {
  const RequestDeadline deadline(sources.store != nullptr ? sources.store->request_budget()
                                                          : kRequestDeadline);
  const auto snapshot = sources.sampler.snapshot();
  if (!snapshot) return reply_error(response, 503, "no sample yet: the sampler is starting");
  const auto parsed = parse_history_request(request, sources.now_us(), sources.interval);
  if (!parsed) return reply_error(response, 400, parsed.error().message);
  if (answer_mig_history(sources, *snapshot, *parsed, deadline, response)) return;  // MIG-...
  const auto gpu = find_gpu(*snapshot, parsed->gpu);
  if (!gpu)
    return reply_error(response, 400,
                       fmt::format("gpu: no GPU \"{}\" on this machine", parsed->gpu));
  HistoryBuckets buckets(parsed->since_us, parsed->until_us, parsed->step_us);
  const TimeUs memory_from = add_memory(sources.sampler, *gpu, *parsed, buckets);
  if (sources.store != nullptr && gpu->uuid && parsed->since_us < memory_from) {
    std::expected<void, Error> stored;
    auto opened = sources.store->with_store(
        [&](store::Store& store) {
          stored = add_stored(store, *gpu, *parsed, memory_from, buckets);
        },
        deadline.at());
    if (!opened) return reply_store_unavailable(response, opened.error());
    if (!stored) return reply_store_error(response, stored.error(), deadline);
  }
  const MetricSpec& metric = spec(parsed->metric);
  view::Json document{{"schema_version", 1},
                      {"gpu", {{"index", gpu->index}, {"uuid", view::nullable(gpu->uuid)}}},
                      {"metric", metric.key},
                      {"unit", metric.unit},
                      {"step_seconds", parsed->step_us / 1'000'000}};
  document.update(buckets.columns());
  reply_json(response, document);
}

}  // namespace

void add_history_route(HttpServer& server, HistorySources sources) {
  server.get("/api/v1/history", [sources = std::move(sources)](const httplib::Request& request,
                                                               httplib::Response& response) {
    answer(sources, request, response);
  });
}

}  // namespace gpumeter::net
