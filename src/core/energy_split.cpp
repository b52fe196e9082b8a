// SPDX-License-Identifier: MIT
#include <algorithm>

#include "core/attribution_parts.h"

namespace gpumeter {
namespace {

// A counter that falls (the driver was reloaded) has no meaningful delta.
bool counter_went_back(const RingBuffer<DeviceRecord>& samples, Window window) {
  std::size_t i = samples.upper_bound(window.begin_us);
  i = i > 0 ? i - 1 : 0;
  const std::size_t end = std::min(samples.lower_bound(window.end_us) + 1, samples.size());
  std::optional<double> last;
  for (; i < end; ++i) {
    const Maybe<double>& e = samples[i].energy_joules();
    if (!e) continue;
    if (last && *e < *last) return true;
    last = *e;
  }
  return false;
}

struct RateStep {
  TimeUs time_us;
  int set_delta;    // change of the set's summed SM percent
  int total_delta;  // change of every process's summed SM percent
};

std::vector<RateStep> rate_steps(std::span<const Segment> segments) {
  std::vector<RateStep> steps;
  for (const Segment& s : segments) {
    const int sm = s.record[Engine::sm];
    if (sm == 0) continue;
    steps.push_back({s.begin_us, s.in_set ? sm : 0, sm});
    steps.push_back({s.end_us, s.in_set ? -sm : 0, -sm});
  }
  std::ranges::sort(steps, {}, &RateStep::time_us);
  return steps;
}

struct Split {
  double set = 0.0;
  double others = 0.0;
  double idle = 0.0;
};

// Walks the window from one rate change to the next; within each stretch the SM rates are
// constant and the stretch's energy goes to the processes in proportion to them, or to idle.
Maybe<Split> sweep(const DeviceSeries& device, std::span<const RateStep> steps, Window window,
                   double begin_j) {
  Split split;
  int set_rate = 0;
  int total_rate = 0;
  std::size_t k = 0;
  const auto apply_at = [&](TimeUs t) {
    for (; k < steps.size() && steps[k].time_us == t; ++k) {
      set_rate += steps[k].set_delta;
      total_rate += steps[k].total_delta;
    }
  };
  TimeUs at = window.begin_us;
  double at_j = begin_j;
  apply_at(at);
  while (at < window.end_us) {
    const TimeUs next = k < steps.size() ? steps[k].time_us : window.end_us;
    const Maybe<double> next_j = energy_at(device, next);
    if (!next_j) return std::unexpected(next_j.error());
    const double joules = *next_j - at_j;
    if (total_rate > 0) {
      split.set += joules * set_rate / total_rate;
      split.others += joules * (total_rate - set_rate) / total_rate;
    } else {
      split.idle += joules;
    }
    apply_at(next);
    at = next;
    at_j = *next_j;
  }
  return split;
}

struct OwnedStep {
  TimeUs time_us;
  std::size_t owner;
  int delta;  // change of the owner's SM percent
};

std::vector<OwnedStep> owned_steps(std::span<const Segment> segments,
                                   std::span<const std::size_t> owners) {
  std::vector<OwnedStep> steps;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const int sm = segments[i].record[Engine::sm];
    if (sm == 0) continue;
    steps.push_back({segments[i].begin_us, owners[i], sm});
    steps.push_back({segments[i].end_us, owners[i], -sm});
  }
  std::ranges::sort(steps, {}, &OwnedStep::time_us);
  return steps;
}

// The sweep of `sweep`, for every process at once. A stretch's energy goes to each busy
// process in proportion to its rate, joules × rate / total: so the running sum of
// joules / total over the busy stretches, multiplied by a process's rate while it holds, gives
// its share without visiting every process in every stretch.
class ShareSweep {
 public:
  explicit ShareSweep(std::size_t processes)
      : shares_(processes, 0.0), marks_(processes, 0.0), rates_(processes, 0) {}

  void change(const OwnedStep& step) {
    settle(step.owner);
    rates_[step.owner] += step.delta;
    total_ += step.delta;
  }
  void spend(double joules) {
    if (total_ > 0) per_rate_ += joules / total_;
  }
  std::vector<double> shares() {
    for (std::size_t owner = 0; owner < shares_.size(); ++owner) settle(owner);
    return shares_;
  }

 private:
  void settle(std::size_t owner) {
    shares_[owner] += rates_[owner] * (per_rate_ - marks_[owner]);
    marks_[owner] = per_rate_;
  }

  std::vector<double> shares_;
  std::vector<double> marks_;
  std::vector<int> rates_;
  int total_ = 0;
  double per_rate_ = 0.0;  // Σ joules / total rate over the busy stretches so far
};

}  // namespace

Maybe<std::vector<double>> energy_per_process(const DeviceSeries& device,
                                              std::span<const Segment> segments,
                                              std::span<const std::size_t> owners,
                                              std::size_t process_count, Window window,
                                              Maybe<void> split_known) {
  const Maybe<double> begin_j = energy_at(device, window.begin_us);
  const Maybe<double> end_j = energy_at(device, window.end_us);
  if (!begin_j) return std::unexpected(begin_j.error());
  if (!end_j) return std::unexpected(end_j.error());
  if (counter_went_back(device.samples(), window)) return std::unexpected(Unavailable::error);
  if (!split_known) return std::unexpected(split_known.error());
  const std::vector<OwnedStep> steps = owned_steps(segments, owners);
  ShareSweep sweep(process_count);
  std::size_t k = 0;
  const auto apply_at = [&](TimeUs t) {
    for (; k < steps.size() && steps[k].time_us == t; ++k) sweep.change(steps[k]);
  };
  TimeUs at = window.begin_us;
  double at_j = *begin_j;
  apply_at(at);
  while (at < window.end_us) {
    const TimeUs next = k < steps.size() ? steps[k].time_us : window.end_us;
    const Maybe<double> next_j = energy_at(device, next);
    if (!next_j) return std::unexpected(next_j.error());
    sweep.spend(*next_j - at_j);
    apply_at(next);
    at = next;
    at_j = *next_j;
  }
  return sweep.shares();
}

EnergyUse split_energy(const DeviceSeries& device, std::span<const Segment> segments, Window window,
                       Maybe<void> split_known) {
  const Maybe<double> begin_j = energy_at(device, window.begin_us);
  const Maybe<double> end_j = energy_at(device, window.end_us);
  if (!begin_j || !end_j) {
    const auto reason = std::unexpected(!begin_j ? begin_j.error() : end_j.error());
    return {reason, reason, reason, reason};
  }
  if (counter_went_back(device.samples(), window)) {
    const auto reason = std::unexpected(Unavailable::error);
    return {reason, reason, reason, reason};
  }
  EnergyUse use{.device_joules = *end_j - *begin_j};
  const auto steps = rate_steps(segments);
  const Maybe<Split> split =
      split_known ? sweep(device, steps, window, *begin_j) : std::unexpected(split_known.error());
  if (!split) {
    use.processes_joules = use.other_processes_joules = use.idle_joules =
        std::unexpected(split.error());
    return use;
  }
  use.processes_joules = split->set;
  use.other_processes_joules = split->others;
  use.idle_joules = split->idle;
  return use;
}

}  // namespace gpumeter
