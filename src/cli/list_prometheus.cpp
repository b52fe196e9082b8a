// SPDX-License-Identifier: MIT
#include "cli/list_prometheus.h"

#include <thread>

#include "core/sampler.h"
#include "core/wall_clock.h"
#include "exposition/process_activity.h"

namespace gpumeter::cli {
std::expected<std::string, Error> prometheus_once(Session& session,
                                                  const exposition::ProcessLimit& limit) {
  Sampler sampler(
      session.gpus(), session.host(),
      SamplerConfig{.interval = kOneShotSampling, .collect = session.collect_options()});
  if (auto first = sampler.sample_once(wall_clock_us()); !first) {
    return std::unexpected(std::move(first.error()));
  }
  std::this_thread::sleep_for(kOneShotSampling);
  if (auto second = sampler.sample_once(wall_clock_us()); !second) {
    return std::unexpected(std::move(second.error()));
  }
  const auto snapshot = sampler.snapshot();
  const exposition::MetricsOptions options{.processes = limit, .sampler_metrics = false};
  return exposition::render_metrics(*snapshot, sampler.stats(), options,
                                    exposition::recent_activity(sampler, snapshot->time_us));
}

}  // namespace gpumeter::cli
