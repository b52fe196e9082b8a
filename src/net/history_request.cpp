// SPDX-License-Identifier: MIT
#include "net/history_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "net/history_buckets.h"
#include "net/query_params.h"
#include "net/query_time.h"
#include "store/gauges.h"

namespace gpumeter::net {
namespace {

std::string gauge_names() {
  std::string names;
  for (const store::Gauge& gauge : store::kGauges) {
    names += fmt::format("{}{}", names.empty() ? "" : ", ", gauge.column());
  }
  return names;
}

std::expected<DeviceMetric, Error> metric_param(const httplib::Request& request) {
  const auto text = query_param(request, "metric");
  if (!text) return DeviceMetric::utilization_gpu;
  const auto* gauge = std::ranges::find_if(
      store::kGauges, [&](const store::Gauge& candidate) { return candidate.column() == *text; });
  if (gauge == store::kGauges.end()) {
    return std::unexpected(
        bad_param("metric", fmt::format("\"{}\" is not one of {}", *text, gauge_names())));
  }
  return gauge->metric;
}

std::expected<TimeUs, Error> step_param(const httplib::Request& request, TimeUs since_us,
                                        TimeUs until_us, std::chrono::milliseconds interval) {
  const auto text = query_param(request, "step");
  if (!text) {
    // Whole days past 720 steps: at most 721 buckets, whatever the window.
    const TimeUs step_us = default_step(since_us, until_us, interval);
    return step_us;
  }
  const auto step = parse_step(*text);
  if (!step) {
    return std::unexpected(bad_param(
        "step",
        fmt::format("\"{}\" is not a duration of whole seconds such as 10s, 1m, 1h", *text)));
  }
  const TimeUs step_us = std::chrono::duration_cast<std::chrono::microseconds>(*step).count();
  if (bucket_count(since_us, until_us, step_us) > kMaxHistoryPoints) {
    return std::unexpected(bad_param(
        "step",
        fmt::format("{} cuts the window into more than {} buckets", *text, kMaxHistoryPoints)));
  }
  return step_us;
}

}  // namespace

TimeUs default_step(TimeUs since_us, TimeUs until_us, std::chrono::milliseconds interval) {
  constexpr std::array<TimeUs, 17> kSteps{1,   2,   5,    10,   15,   30,    60,    120,  300,
                                          600, 900, 1800, 3600, 7200, 21600, 43200, 86400};
  const TimeUs interval_us =
      std::chrono::duration_cast<std::chrono::microseconds>(interval).count();
  for (const TimeUs seconds : kSteps) {
    const TimeUs step_us = seconds * kSecondUs;
    if (step_us < interval_us) continue;
    // The window's length, not its aligned buckets: one more bucket may start before it.
    if ((until_us - since_us + step_us - 1) / step_us <= kDefaultHistoryPoints) return step_us;
  }
  // Beyond a day, whole days: the answer stays within kDefaultHistoryPoints buckets however
  // long the window (a bucket more for the alignment).
  const TimeUs day_us = kSteps.back() * kSecondUs;
  const TimeUs days =
      (until_us - since_us + day_us * kDefaultHistoryPoints - 1) / (day_us * kDefaultHistoryPoints);
  return std::max<TimeUs>(days, 1) * day_us;
}

std::expected<HistoryRequest, Error> parse_history_request(const httplib::Request& request,
                                                           TimeUs now_us,
                                                           std::chrono::milliseconds interval) {
  HistoryRequest parsed;
  const auto gpu = query_param(request, "gpu");
  if (!gpu) return std::unexpected(bad_param("gpu", "required: a GPU index or UUID"));
  parsed.gpu = *gpu;
  auto metric = metric_param(request);
  if (!metric) return std::unexpected(std::move(metric.error()));
  parsed.metric = *metric;
  auto since = time_param(request, "since", now_us - kHourUs, now_us);
  if (!since) return std::unexpected(std::move(since.error()));
  auto until = time_param(request, "until", now_us, now_us);
  if (!until) return std::unexpected(std::move(until.error()));
  if (*since >= *until) return std::unexpected(bad_param("since", "not before until"));
  parsed.since_us = *since;
  parsed.until_us = *until;
  auto step = step_param(request, *since, *until, interval);
  if (!step) return std::unexpected(std::move(step.error()));
  parsed.step_us = *step;
  return parsed;
}

}  // namespace gpumeter::net
