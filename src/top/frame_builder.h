// SPDX-License-Identifier: MIT
// Builds the frame `top` draws from a snapshot, the GPUs' recent readings and each process's
// CPU and resident memory (from the sampler's host series).
#pragma once

#include <map>

#include "core/host_series.h"
#include "core/model.h"
#include "top/frame.h"

namespace gpumeter::top {

// The recent readings of each GPU, oldest first, from the snapshots given (one point each):
// what the sparklines draw.
class GpuHistory {
 public:
  void add(const Snapshot& snapshot);

  struct Histories {
    History sm, memory, power, temperature;  // percent, percent of total, watts, °C
  };
  const Histories* of(std::uint32_t gpu) const;

 private:
  std::map<std::uint32_t, Histories> gpus_;
  TimeUs last_us_ = 0;
};

struct HostFigures {
  Maybe<double> cpu_percent = std::unexpected(Unavailable::no_data);
  Maybe<double> rss_bytes = std::unexpected(Unavailable::no_data);
};
using HostFigureMap = std::map<Pid, HostFigures>;

// CPU use over the last `window_us` of the series (100 % is one core) and the resident memory
// at its last reading.
HostFigures host_figures(const HostSeries& series, TimeUs window_us = 5'000'000);

// Each process's engine use by GPU and pid, where it comes from elsewhere than the snapshot
// (`top` reads it from its sampler's series).
using EngineUseMap = std::map<std::pair<std::uint32_t, Pid>, Maybe<RecentEngineUse>>;

Frame build_frame(const Snapshot& snapshot, const GpuHistory& history, const HostFigureMap& hosts,
                  const EngineUseMap& uses = {}, std::string error = {});

}  // namespace gpumeter::top
