// SPDX-License-Identifier: MIT
#include "net/history_mig.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "net/history_buckets.h"
#include "net/response.h"
#include "store/mig_memory.h"

namespace gpumeter::net {
namespace {

struct FoundMig {
  const Device* gpu = nullptr;
  const MigDevice* mig = nullptr;
};

std::optional<FoundMig> find_mig(const Snapshot& snapshot, const std::string& uuid) {
  for (const Device& device : snapshot.gpus.devices) {
    if (!device.mig || !device.mig->enabled) continue;
    for (const MigDevice& mig : device.mig->devices) {
      if (mig.uuid && *mig.uuid == uuid) return FoundMig{&device, &mig};
    }
  }
  return std::nullopt;
}

// The stored figure of `row` for `request.metric` and how many readings it covers: memory
// (every reading has it) or a GPM figure (only the readings that had it); nullopt when none did.
struct StoredFigure {
  store::GaugeStats stats;
  std::int64_t samples = 0;
};

std::optional<StoredFigure> stored_figure(const store::MigMemoryRow& row, DeviceMetric metric) {
  if (metric == DeviceMetric::memory_used)
    return StoredFigure{.stats = row.memory_used_bytes, .samples = row.samples};
  const auto position = store::gpm_position(metric);
  if (!position || row.gpm_samples[*position] <= 0 || !row.gpm[*position].avg) return std::nullopt;
  return StoredFigure{.stats = row.gpm[*position], .samples = row.gpm_samples[*position]};
}

std::expected<void, Error> add_stored(store::Store& store, const HistoryRequest& request,
                                      HistoryBuckets& buckets) {
  for (const auto resolution : {store::Resolution::minutes, store::Resolution::hours}) {
    auto rows = store::mig_memory_series(store, {.resolution = resolution,
                                                 .since_us = request.since_us,
                                                 .until_us = request.until_us,
                                                 .mig_uuid = request.gpu});
    if (!rows) return std::unexpected(std::move(rows.error()));
    for (const store::MigMemoryRow& row : *rows) {
      const auto figure = stored_figure(row, request.metric);
      if (!figure) continue;  // no reading of the bucket had it: no point, never 0
      const store::GaugeStats& stats = figure->stats;
      buckets.add(
          Reading{.time_us = row.bucket_us,
                  .min = stats.min.value_or(0),
                  .avg = stats.avg.value_or(0),
                  .max = stats.max.value_or(0),
                  .weight = std::max<std::int64_t>(figure->samples, 1),
                  .tier = resolution == store::Resolution::minutes ? Tier::minutes : Tier::hours});
    }
  }
  return {};
}

view::Json mig_json(const FoundMig& found) {
  return view::Json{
      {"uuid", *found.mig->uuid},
      {"gpu_instance_id", found.mig->gpu_instance_id},
      {"compute_instance_id", found.mig->compute_instance_id},
      {"profile", found.mig->profile ? view::Json(*found.mig->profile) : view::Json(nullptr)}};
}

}  // namespace

bool answer_mig_history(const HistorySources& sources, const Snapshot& snapshot,
                        const HistoryRequest& request, const RequestDeadline& deadline,
                        httplib::Response& response) {
  const auto found = find_mig(snapshot, request.gpu);
  if (!found) return false;
  if (request.metric != DeviceMetric::memory_used && !store::gpm_position(request.metric)) {
    reply_error(response, 400,
                "metric: a MIG device's history holds memory_used_bytes and the gpm_* figures "
                "only (the driver reports no other utilisation per MIG device)");
    return true;
  }
  if (sources.store == nullptr) {
    reply_error(response, 503, "a MIG device's history needs the history database");
    return true;
  }
  HistoryBuckets buckets(request.since_us, request.until_us, request.step_us);
  std::expected<void, Error> stored;
  auto opened = sources.store->with_store(
      [&](store::Store& store) { stored = add_stored(store, request, buckets); }, deadline.at());
  if (!opened) {
    reply_store_unavailable(response, opened.error());
    return true;
  }
  if (!stored) {
    reply_store_error(response, stored.error(), deadline);
    return true;
  }
  const MetricSpec& metric = spec(request.metric);
  view::Json document{{"schema_version", 1},
                      {"gpu",
                       {{"index", found->gpu->identity.index},
                        {"uuid", found->gpu->identity.uuid ? view::Json(*found->gpu->identity.uuid)
                                                           : view::Json(nullptr)}}},
                      {"mig", mig_json(*found)},
                      {"metric", metric.key},
                      {"unit", metric.unit},
                      {"step_seconds", request.step_us / 1'000'000}};
  document.update(buckets.columns());
  reply_json(response, document);
  return true;
}

}  // namespace gpumeter::net
