// SPDX-License-Identifier: MIT
// gpumeter_quota_gpu_hours and gpumeter_quota_default_gpu_hours: the daemon's --quota file as
// gauges, so that an alert rule can compare the ledger counters with it
// (examples/prometheus/alerts.yml, GpumeterQuotaExceeded).
#include <limits>
#include <string>

#include "exposition/parts.h"

namespace gpumeter::exposition {
namespace {

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

// An unlimited line is +Inf under period "any": it exempts the user from the default.
void sample(Family& family, const Labels& labels, const std::optional<view::Quota>& quota) {
  if (quota) {
    family.sample(labels.with("period", view::period_name(quota->period)), quota->gpu_hours);
  } else {
    family.sample(labels.with("period", "any"), kUnlimited);
  }
}

}  // namespace

void append_quota_metrics(fmt::memory_buffer& out, const Labels& host,
                          const view::QuotaFile& quotas) {
  {
    Family users(out, "gpumeter_quota_gpu_hours", MetricType::gauge,
                 "GPU-hours a user may use per calendar period, from the daemon's --quota file "
                 "(+Inf: unlimited)");
    for (const auto& [user, quota] : quotas.users) sample(users, host.with("user", user), quota);
  }
  if (quotas.default_quota) {
    Family fallback(out, "gpumeter_quota_default_gpu_hours", MetricType::gauge,
                    "GPU-hours per calendar period of every user the --quota file does not name "
                    "(+Inf: unlimited)");
    sample(fallback, host, *quotas.default_quota);
  }
}

}  // namespace gpumeter::exposition
