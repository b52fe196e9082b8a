// SPDX-License-Identifier: MIT
// The parameters of `GET /api/v1/history` (docs/http.md):
// gpu=<index|uuid>&metric=<gauge>&since=<time>&until=<time>&step=<duration>.
#pragma once

#include <httplib.h>

#include <chrono>
#include <expected>
#include <string>

#include "core/error.h"
#include "core/metrics.h"
#include "core/model.h"

namespace gpumeter::net {

// The most buckets one answer holds, and how many a default step aims at.
inline constexpr std::int64_t kMaxHistoryPoints = 10'000;
inline constexpr std::int64_t kDefaultHistoryPoints = 720;

struct HistoryRequest {
  std::string gpu;  // an index ("0") or a UUID, as given
  DeviceMetric metric = DeviceMetric::utilization_gpu;
  TimeUs since_us = 0;
  TimeUs until_us = 0;
  TimeUs step_us = 0;
};

// `gpu` is required; `metric` defaults to utilization_gpu_percent and is one of the gauges
// the store keeps (store/gauges.h); `since` defaults to 1h (before `now_us`), `until` to
// now; `step` defaults to default_step(). Errors: invalid_input naming the parameter: a
// missing gpu, an unknown metric, a bad time or step, an empty window, too many buckets.
std::expected<HistoryRequest, Error> parse_history_request(const httplib::Request& request,
                                                           TimeUs now_us,
                                                           std::chrono::milliseconds interval);

// The smallest of 1s, 2s, 5s, 10s, 15s, 30s, 1m, 2m, 5m, 10m, 15m, 30m, 1h, 2h, 6h, 12h, 1d
// that is not shorter than the sampler's interval and cuts the window's length into at most
// kDefaultHistoryPoints steps; for longer windows the fewest whole days that do. The
// answer's buckets are thus bounded whatever the window.
TimeUs default_step(TimeUs since_us, TimeUs until_us, std::chrono::milliseconds interval);

}  // namespace gpumeter::net
