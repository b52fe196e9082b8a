// SPDX-License-Identifier: MIT
#include "cli/run_gpu.h"

#include <vector>

#include "core/wall_clock.h"

namespace gpumeter::cli {
namespace {

SamplerConfig sampler_config(const Session& session, std::chrono::milliseconds interval) {
  SamplerConfig config;
  config.interval = interval;
  config.series.horizon_us = std::chrono::microseconds(kRunHorizon).count();
  config.series.interval_us = std::chrono::microseconds(interval).count();
  config.collect = session.collect_options();
  return config;
}

}  // namespace

GpuMeasure::GpuMeasure(Session& session, std::chrono::milliseconds interval)
    : sampler_(session.gpus(), session.host(), sampler_config(session, interval)),
      interval_(interval) {}

GpuMeasure::~GpuMeasure() {
  sampler_.stop();
}

void GpuMeasure::start() {
  const TimeUs now = wall_clock_us();
  sampler_.start();
  // A driver that hangs must not keep the command from starting for long.
  (void)sampler_.wait_for_round(now, 3 * interval_ + std::chrono::seconds(2));
}

void GpuMeasure::follow(Pid pid) {
  const auto key = sampler_.key_for(pid);
  if (!key || !keys_.insert(*key).second) return;
  sampler_.watch(*key);
}

std::expected<Usage, Error> GpuMeasure::finish(Window window) {
  const TimeUs complete = sampler_.complete_after(window.end_us);
  const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::microseconds(complete - wall_clock_us()) + 2 * interval_ +
      std::chrono::seconds(2));
  (void)sampler_.wait_for_round(complete, wait);
  sampler_.stop();
  const std::vector<ProcessKey> keys(keys_.begin(), keys_.end());
  return sampler_.usage(keys, window);
}

}  // namespace gpumeter::cli
