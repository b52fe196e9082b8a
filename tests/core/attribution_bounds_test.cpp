// SPDX-License-Identifier: MIT
// The estimate of a window's busy time and its bounds (docs/attribution.md, "Window edges"),
// against synthetic driver samples made the way a driver makes them: a scripted SM profile per
// process, each period's mean on the 1/6 s grid rounded to a whole percent, reported only when
// not 0. Tasks are placed at random against the grid (fixed seed), many times over.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/attribution.h"

namespace gpumeter::attribution_bounds_test {

constexpr TimeUs kT0 = 1'700'000'000'000'000;
constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kPeriod = 166'667;  // the shortest driver period
constexpr int kTrials = 1000;

const ProcessKey kWorker{.pid = 100, .start_time_us = kT0 - 100 * kSecond};
const ProcessKey kNeighbour{.pid = 200, .start_time_us = kT0 - 100 * kSecond};

struct Burst {
  TimeUs begin_us;
  TimeUs end_us;
  double percent;
};

// A process's scripted SM use: its bursts (not overlapping), `background` percent elsewhere.
struct Profile {
  std::vector<Burst> bursts;
  double background = 0.0;

  // ∫ percent dt over (from, to], percent × µs.
  double integral(TimeUs from, TimeUs to) const {
    double sum = background * static_cast<double>(to - from);
    for (const Burst& b : bursts) {
      const TimeUs overlap = std::min(to, b.end_us) - std::max(from, b.begin_us);
      if (overlap > 0) sum += (b.percent - background) * static_cast<double>(overlap);
    }
    return sum;
  }
};

// The driver's samples of `profile` until `until`: each period's mean, rounded to a whole
// percent, stamped with the period's end, only when not 0.
void report(Series& series, const ProcessKey& key, const Profile& profile, TimeUs until) {
  for (TimeUs t = kT0 + kPeriod; t <= until; t += kPeriod) {
    const double mean = profile.integral(t - kPeriod, t) / static_cast<double>(kPeriod);
    const auto sm = static_cast<std::uint32_t>(std::floor(mean + 0.5));
    if (sm > 0) series.add_process_gpu_sample(0, key, {.time_us = t, .sm = sm, .mem = sm / 2});
  }
}

// Device samples every second, each drained; the board draws 60 W plus 2 W per SM percent.
// The sampler knows the driver's period.
void sample_device(Series& series, std::span<const Profile> profiles, TimeUs until) {
  series.set_sample_period_us(0, kPeriod);
  for (TimeUs t = kT0; t <= until; t += kSecond) {
    double joules = 1000.0 + 60.0 * static_cast<double>(t - kT0) / 1e6;
    for (const Profile& p : profiles) joules += 2.0 * p.integral(kT0, t) / 1e6;
    series.add_device_sample(0, {.time_us = t, .energy_joules = joules});
  }
}

struct Trial {
  Series series;
  Window task;
  Profile worker;
};

// A worker that runs a task of `duration` at `percent` at a random place between 2 and 3 s,
// with tasks at 50 % 0.6 s before and after it, and `background` percent between tasks; a
// neighbour on the same GPU busy at 25 % for 1.3 s of every 2 s.
Trial worker_trial(std::mt19937_64& rng, TimeUs duration, double percent, double background) {
  Trial trial;
  const TimeUs begin = kT0 + 2 * kSecond + std::uniform_int_distribution<TimeUs>(0, kSecond)(rng);
  trial.task = {.begin_us = begin, .end_us = begin + duration};
  const TimeUs gap = 600'000;
  trial.worker = {.bursts = {{begin - gap - kSecond, begin - gap, 50.0},
                             {begin, begin + duration, percent},
                             {begin + duration + gap, begin + duration + gap + kSecond, 50.0}},
                  .background = background};
  Profile neighbour;
  for (TimeUs s = kT0; s < kT0 + 12 * kSecond; s += 2 * kSecond) {
    neighbour.bursts.push_back({s + 300'000, s + 1'600'000, 25.0});
  }
  const TimeUs until = begin + duration + 4 * kSecond;
  const std::array profiles{trial.worker, neighbour};
  sample_device(trial.series, profiles, until);
  report(trial.series, kWorker, trial.worker, until);
  report(trial.series, kNeighbour, neighbour, until);
  return trial;
}

// The driver's rounding: half a percent of every period that overlaps the window, seconds.
double rounding_allowance(Window w) {
  const TimeUs first = (w.begin_us - kT0) / kPeriod;             // the period holding begin
  const TimeUs last = (w.end_us - kT0 + kPeriod - 1) / kPeriod;  // the period holding end
  return 0.005 * static_cast<double>((last - first) * kPeriod) / 1e6;
}

GpuUsage worker_usage(const Series& series, Window window) {
  const std::array keys{kWorker};
  const auto result = usage(series, keys, window);
  EXPECT_TRUE(result.has_value());
  EXPECT_EQ(result->gpus.size(), 1U);
  return result->gpus.empty() ? GpuUsage{} : result->gpus.front();
}

// The figures a trial's task gets, with the truth; checks what every trial must satisfy.
struct Checked {
  double truth_pp = 0;
  double estimate_pp = 0;
  double width_pp = 0;
  bool low = false;
};

Checked check(const Trial& trial) {
  const GpuUsage gpu = worker_usage(trial.series, trial.task);
  const EngineUse& sm = gpu[Engine::sm];
  const double window_s = static_cast<double>(trial.task.length_us()) / 1e6;
  const double truth = trial.worker.integral(trial.task.begin_us, trial.task.end_us) / 100 / 1e6;
  const double allowance = rounding_allowance(trial.task);
  EXPECT_LE(*sm.busy_seconds_lower, *sm.busy_seconds);
  EXPECT_LE(*sm.busy_seconds, *sm.busy_seconds_upper);
  EXPECT_LE(*sm.busy_seconds_lower, truth + allowance);
  EXPECT_GE(*sm.busy_seconds_upper, truth - allowance);
  EXPECT_NEAR(*sm.average_percent_upper - *sm.average_percent_lower,
              *gpu.confidence.sm_bounds_width_pp, 1e-9);
  // The energy split still adds up to the device's energy.
  EXPECT_NEAR(
      *gpu.energy.processes_joules + *gpu.energy.other_processes_joules + *gpu.energy.idle_joules,
      *gpu.energy.device_joules, 1e-6);
  EXPECT_EQ(gpu.confidence.coverage, 1.0);
  EXPECT_EQ(gpu.confidence.low(), *gpu.confidence.sm_bounds_width_pp > kLowConfidenceBoundsWidthPp);
  return {.truth_pp = 100 * truth / window_s,
          .estimate_pp = *sm.average_percent,
          .width_pp = *gpu.confidence.sm_bounds_width_pp,
          .low = gpu.confidence.low()};
}

struct Case {
  TimeUs duration_us;
  double percent;
};

TEST(AttributionBounds, AWorkerIdleBetweenTasksGetsItsTasksUseAtRandomAlignments) {
  std::mt19937_64 rng(20261126);
  for (const Case c :
       {Case{300'000, 70}, Case{300'000, 35}, Case{500'000, 100}, Case{1'000'000, 70},
        Case{1'000'000, 35}, Case{1'000'000, 100}, Case{2'500'000, 70}}) {
    SCOPED_TRACE(testing::Message() << c.duration_us << " µs at " << c.percent << " %");
    double worst = 0;
    for (int i = 0; i < kTrials; ++i) {
      const Trial trial = worker_trial(rng, c.duration_us, c.percent, 0.0);
      const Checked figures = check(trial);
      worst = std::max(worst, std::abs(figures.estimate_pp - figures.truth_pp));
      // At 70 % the bounds of a 1 s task are at most 11.7 pp wide: never flagged.
      if (c.duration_us >= kSecond && c.percent == 70.0) {
        EXPECT_FALSE(figures.low);
      }
    }
    EXPECT_LE(worst, c.duration_us >= kSecond ? 1.0 : 3.0);
    RecordProperty(std::to_string(c.duration_us / 1000) + "ms_at_" +
                       std::to_string(static_cast<int>(c.percent)) + "_worst_error_pp",
                   std::to_string(worst));
  }
}

TEST(AttributionBounds, TheProportionalRuleIsLowAtTheEdgesOfAnIdleWorkersTasks) {
  // What the markers rule is for: the old rule throws away part of each edge sample.
  std::mt19937_64 rng(7);
  double sum_error = 0;
  for (int i = 0; i < kTrials; ++i) {
    const Trial trial = worker_trial(rng, 300'000, 70, 0.0);
    const std::array keys{kWorker};
    const auto proportional = usage(trial.series, keys, trial.task, EdgeRule::proportional);
    ASSERT_TRUE(proportional.has_value());
    const EngineUse& sm = proportional->gpus.front()[Engine::sm];
    const double truth = trial.worker.integral(trial.task.begin_us, trial.task.end_us) / 100 /
                         static_cast<double>(trial.task.length_us()) * 100;
    sum_error += *sm.average_percent - truth;
    EXPECT_GE(*sm.busy_seconds, *sm.busy_seconds_lower);
    EXPECT_LE(*sm.busy_seconds, *sm.busy_seconds_upper);
  }
  RecordProperty("proportional_mean_error_pp", std::to_string(sum_error / kTrials));
  EXPECT_LT(sum_error / kTrials, -5.0);
}

TEST(AttributionBounds, AWorkerBusyBetweenTasksGetsWideHonestBoundsAndIsFlaggedWhenWide) {
  std::mt19937_64 rng(42);
  int flagged = 0;
  double widest = 0;
  for (int i = 0; i < kTrials; ++i) {
    const Checked figures = check(worker_trial(rng, 300'000, 70, 30.0));
    widest = std::max(widest, figures.width_pp);
    if (figures.low) ++flagged;
  }
  RecordProperty("widest_pp", std::to_string(widest));
  RecordProperty("flagged", flagged);
  EXPECT_GT(widest, 16.0);
  EXPECT_GT(flagged, kTrials / 4);
}

TEST(AttributionBounds, AShortTaskWithWideBoundsIsFlaggedAndALongOneIsNot) {
  // Edges in the middle of their periods: (P/2 at 35 % + 0.3 P at 21 %) of doubt over 0.3 s.
  const TimeUs begin = kT0 + 15 * kPeriod + kPeriod / 2;
  Profile worker{.bursts = {{begin, begin + 300'000, 70.0}}};
  Series series;
  const std::array profiles{worker};
  sample_device(series, profiles, begin + 3 * kSecond);
  report(series, kWorker, worker, begin + 3 * kSecond);
  const GpuUsage short_task = worker_usage(series, {begin, begin + 300'000});
  EXPECT_GE(*short_task.confidence.sm_bounds_width_pp, 16.0);
  EXPECT_TRUE(short_task.confidence.low());
  EXPECT_NEAR(*short_task[Engine::sm].average_percent, 70.0, 3.0);

  Profile long_worker{.bursts = {{begin, begin + kSecond, 70.0}}};
  Series long_series;
  const std::array long_profiles{long_worker};
  sample_device(long_series, long_profiles, begin + 3 * kSecond);
  report(long_series, kWorker, long_worker, begin + 3 * kSecond);
  const GpuUsage long_task = worker_usage(long_series, {begin, begin + kSecond});
  EXPECT_FALSE(long_task.confidence.low());
  EXPECT_NEAR(*long_task[Engine::sm].average_percent, 70.0, 1.0);
}

TEST(AttributionBounds, AWindowInsideOnePeriodTakesTheRuleAtBothEdges) {
  const TimeUs begin = kT0 + 12 * kPeriod + 40'000;
  const TimeUs end = begin + 100'000;  // inside (12 P, 13 P]
  Profile worker{.bursts = {{begin, end, 80.0}}};
  Series series;
  const std::array profiles{worker};
  sample_device(series, profiles, kT0 + 5 * kSecond);
  report(series, kWorker, worker, kT0 + 5 * kSecond);
  const GpuUsage gpu = worker_usage(series, {begin, end});
  // 48 % of the period, all inside the window: 80 % of it, as scripted (up to rounding); at
  // least what does not fit in the rest of the period.
  const double busy = 0.48 * kPeriod / 1e6;
  EXPECT_NEAR(*gpu[Engine::sm].busy_seconds, busy, 1e-9);
  EXPECT_NEAR(*gpu[Engine::sm].busy_seconds_upper, busy, 1e-9);
  EXPECT_NEAR(*gpu[Engine::sm].busy_seconds_lower, busy - (kPeriod - (end - begin)) / 1e6, 1e-9);
  EXPECT_NEAR(*gpu[Engine::sm].average_percent, 80.0, 0.5);
  EXPECT_TRUE(gpu.confidence.shorter_than_sample_period);
  EXPECT_TRUE(gpu.confidence.low());
}

// A worker whose kernels, queued inside its task, run on for `tail` after the end marker.
GpuUsage task_with_tail(TimeUs begin, TimeUs end, TimeUs tail) {
  Profile worker{.bursts = {{begin, end + tail, 70.0}}};
  Series series;
  const std::array profiles{worker};
  sample_device(series, profiles, kT0 + 8 * kSecond);
  report(series, kWorker, worker, kT0 + 8 * kSecond);
  return worker_usage(series, {begin, end});
}

TEST(AttributionBounds, UseAfterTheEndMarkerCountsOnlyWithinTheStraddlingPeriod) {
  // The window stays closed at the end marker. Work that runs on past the end's period: the
  // next period is busy, so the end's period counts proportionally, and the later periods not.
  const TimeUs begin = kT0 + 20 * kPeriod;
  const TimeUs end = begin + kSecond + kPeriod / 2;
  const GpuUsage long_tail = task_with_tail(begin, end, 400'000);
  EXPECT_NEAR(*long_tail[Engine::sm].busy_seconds, 0.7 * static_cast<double>(end - begin) / 1e6,
              1e-6);
  // Work that ends inside the end's period: the next period is idle, so the period's busy time
  // counts inside, as far as it fits; here more than the task ran before its end.
  const GpuUsage short_tail = task_with_tail(begin, end, 50'000);
  const EngineUse& sm = short_tail[Engine::sm];
  EXPECT_EQ(*sm.busy_seconds, *sm.busy_seconds_upper);
  const TimeUs inside_last_period = end - (kT0 + 26 * kPeriod);
  EXPECT_NEAR(
      *sm.busy_seconds,
      (0.7 * static_cast<double>(6 * kPeriod) + static_cast<double>(inside_last_period)) / 1e6,
      1e-6);
}

TEST(AttributionBounds, TheCoarseTierBoundsHoldTheTruthWithBucketsAsPeriods) {
  // Tasks 60 to 120 s ago are folded into 1 s buckets; raw periods that straddle a bucket end
  // were split between two buckets, so a bucket's span reaches one driver period past it.
  std::mt19937_64 rng(99);
  Profile worker;
  std::vector<Window> tasks;
  for (TimeUs at = kT0 + 5 * kSecond; at < kT0 + 60 * kSecond; at += 3 * kSecond) {
    const TimeUs begin = at + std::uniform_int_distribution<TimeUs>(0, kSecond)(rng);
    const TimeUs length = std::uniform_int_distribution<TimeUs>(300'000, 1'500'000)(rng);
    worker.bursts.push_back({begin, begin + length, 70.0});
    tasks.push_back({begin, begin + length});
  }
  Series series;
  const TimeUs until = kT0 + 200 * kSecond;
  const std::array profiles{worker};
  sample_device(series, profiles, until);
  report(series, kWorker, worker, until);
  series.fold_before(until - series.config().fine_horizon_us);  // the sampler's upkeep
  for (const Window task : tasks) {
    const GpuUsage gpu = worker_usage(series, task);
    const EngineUse& sm = gpu[Engine::sm];
    const double truth = worker.integral(task.begin_us, task.end_us) / 100 / 1e6;
    // The driver's rounding, and the buckets' rounding of their averages (up to 3 buckets in
    // the window and one at each side).
    const double allowance = rounding_allowance(task) + 5 * 0.005;
    EXPECT_EQ(gpu.confidence.coarse_bucket_us, kSecond);
    EXPECT_LE(*sm.busy_seconds_lower, truth + allowance);
    EXPECT_GE(*sm.busy_seconds_upper, truth - allowance);
    EXPECT_LE(*sm.busy_seconds_lower, *sm.busy_seconds);
    EXPECT_LE(*sm.busy_seconds, *sm.busy_seconds_upper);
    EXPECT_EQ(gpu.confidence.low(),
              *gpu.confidence.sm_bounds_width_pp > kLowConfidenceBoundsWidthPp ||
                  gpu.confidence.shorter_than_coarse_bucket);
    EXPECT_NEAR(
        *gpu.energy.processes_joules + *gpu.energy.other_processes_joules + *gpu.energy.idle_joules,
        *gpu.energy.device_joules, 1e-6);
  }
}

}  // namespace gpumeter::attribution_bounds_test
