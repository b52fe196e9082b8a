// SPDX-License-Identifier: MIT
// Builds the frame `top` draws from a snapshot its sampler published (with each process's
// recent figures: SamplerConfig::recent_figures) and the GPUs' recent readings.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/model.h"
#include "top/frame.h"
#include "view/gpu_status.h"

namespace gpumeter::top {

// The recent readings of each GPU, oldest first, one point a round: what the sparklines draw.
class GpuHistory {
 public:
  struct Histories {
    History sm, memory, power, temperature;  // percent, percent of total, watts, °C
  };
  // One round's readings (NaN where there were none).
  struct Point {
    double sm, memory, power, temperature;
  };

  // Every GPU of the snapshot, one point each; a snapshot not newer than the last is ignored.
  void add(const Snapshot& snapshot);

  // The same, a GPU at a time: begin_round() says whether `time_us` is a new round (false for
  // the same round again), then add() its GPUs' points.
  bool begin_round(TimeUs time_us);
  void add(std::uint32_t gpu, const Point& point);

  // Replaces a GPU's histories (readings from before this view began), keeping the newest
  // kHistoryPoints of each.
  void seed(std::uint32_t gpu, Histories histories);

  const Histories* of(std::uint32_t gpu) const;

 private:
  std::map<std::uint32_t, Histories> gpus_;
  TimeUs last_us_ = 0;
};

Frame build_frame(const Snapshot& snapshot, const GpuHistory& history, std::string error = {});

// The words and colour of `list`'s statuses: "free", "in use", "owner ?", ...
std::pair<std::string, Tone> status_words(view::GpuStatus status);
// A GPU's name without the vendor's prefix ("H100 80GB HBM3").
std::string short_gpu_name(std::string_view name);
// "driver 570.124.06 CUDA 12.8", N/A where unknown.
std::string driver_text(const std::optional<std::string>& driver,
                        const std::optional<std::string>& cuda);

}  // namespace gpumeter::top
