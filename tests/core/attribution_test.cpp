// SPDX-License-Identifier: MIT
#include "core/attribution.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <vector>

namespace gpumeter::attribution_test {

constexpr TimeUs kT0 = 1'700'000'000'000'000;
constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kPeriod = 250'000;  // the simulated driver's sample period
constexpr std::uint64_t kGiB = 1ULL << 30;
constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr double kExact = 1e-9;

TimeUs at(double seconds) {
  return kT0 + static_cast<TimeUs>(std::llround(seconds * 1e6));
}

const ProcessKey kA{.pid = 100, .start_time_us = kT0 - 100 * kSecond};
const ProcessKey kB{.pid = 200, .start_time_us = kT0 - 100 * kSecond};

// Device samples every second from 0 to `seconds`; the board draws watts(s) from s to s + 1.
void sample_device(Series& series, std::uint32_t device, int seconds,
                   const std::function<double(int)>& watts) {
  double joules = 5000.0;
  for (int s = 0; s <= seconds; ++s) {
    series.add_device_sample(device, {.time_us = at(s), .energy_joules = joules});
    joules += watts(s);
  }
}

void sample_device(Series& series, std::uint32_t device, int seconds) {
  sample_device(series, device, seconds, [](int) { return 100.0; });
}

// What the driver reports for a process at `sm` percent during [from, to): one sample per
// period, at the period's end (and nothing while it idles).
void busy(Series& series, std::uint32_t device, const ProcessKey& key, double from, double to,
          std::uint32_t sm) {
  for (TimeUs t = at(from) + kPeriod; t <= at(to); t += kPeriod) {
    series.add_process_gpu_sample(device, key, {.time_us = t, .sm = sm, .mem = sm / 2});
  }
}

Usage query(const Series& series, const std::vector<ProcessKey>& keys, double from, double to) {
  const auto result = usage(series, keys, {.begin_us = at(from), .end_us = at(to)});
  EXPECT_TRUE(result.has_value());
  return result.value_or(Usage{});
}

GpuUsage only_gpu(const Usage& usage) {
  EXPECT_EQ(usage.gpus.size(), 1U);
  return usage.gpus.empty() ? GpuUsage{} : usage.gpus.front();
}

double sm_average(const Series& series, double from, double to) {
  return only_gpu(query(series, {kA}, from, to))[Engine::sm].average_percent.value_or(-1.0);
}

// A worker that runs two tasks at 80 % SM and idles in between.
Series bursty_worker() {
  Series series;
  sample_device(series, 0, 60);
  busy(series, 0, kA, 10, 15, 80);
  busy(series, 0, kA, 30, 32, 80);
  return series;
}

TEST(Attribution, ATaskWindowGetsItsOwnAverageWhileTheLifetimeAverageIsLow) {
  const Series series = bursty_worker();
  const GpuUsage task = only_gpu(query(series, {kA}, 10, 15));
  EXPECT_NEAR(task[Engine::sm].average_percent.value(), 80.0, kExact);
  EXPECT_NEAR(task[Engine::sm].busy_seconds.value(), 4.0, kExact);
  EXPECT_NEAR(task[Engine::memory].average_percent.value(), 40.0, kExact);
  EXPECT_EQ(task[Engine::encoder].average_percent, 0.0);
  EXPECT_EQ(task.confidence.sample_period_us, kPeriod);  // measured from the samples
  EXPECT_FALSE(task.confidence.low());

  EXPECT_NEAR(sm_average(series, 11.1, 12.3), 80.0, kExact);  // not on period boundaries
  EXPECT_NEAR(sm_average(series, 30, 32), 80.0, kExact);
  const double lifetime = sm_average(series, 0, 60);
  EXPECT_NEAR(lifetime, 80.0 * 7 / 60, kExact);
  EXPECT_LT(lifetime, 10.0);
}

TEST(Attribution, NoSampleWhileTheSamplerWasDrainingMeansIdle) {
  const GpuUsage idle = only_gpu(query(bursty_worker(), {kA}, 20, 25));
  EXPECT_EQ(idle[Engine::sm].average_percent, 0.0);
  EXPECT_EQ(idle[Engine::sm].busy_seconds, 0.0);
  EXPECT_FALSE(idle.confidence.low());
}

TEST(Attribution, APeriodThatCrossesAWindowEdgeCountsWhatTheMarkersTell) {
  Series series;
  sample_device(series, 0, 20);
  series.set_sample_period_us(0, kPeriod);
  busy(series, 0, kA, 10, 10.25, 80);  // one sample, at 10.25, for (10, 10.25]
  const GpuUsage whole = only_gpu(query(series, {kA}, 9.5, 11));
  EXPECT_NEAR(whole[Engine::sm].busy_seconds.value(), 0.2, kExact);
  EXPECT_NEAR(whole[Engine::sm].busy_seconds_lower.value(), 0.2, kExact);
  EXPECT_NEAR(whole[Engine::sm].busy_seconds_upper.value(), 0.2, kExact);
  // A was idle in the period before: its 0.2 s count inside, as far as they fit (0.125 s).
  const GpuUsage edge = only_gpu(query(series, {kA}, 10.125, 11));
  EXPECT_NEAR(edge[Engine::sm].busy_seconds.value(), 0.125, kExact);
  EXPECT_NEAR(edge[Engine::sm].busy_seconds_lower.value(), 0.075, kExact);
  EXPECT_NEAR(edge[Engine::sm].busy_seconds_upper.value(), 0.125, kExact);
  EXPECT_NEAR(edge.confidence.sm_bounds_width_pp.value(), 100 * 0.05 / 0.875, kExact);
  // The proportional rule counts the inside part's share.
  const Window window{.begin_us = at(10.125), .end_us = at(11)};
  const std::array keys{kA};
  const auto proportional = usage(series, keys, window, EdgeRule::proportional);
  ASSERT_TRUE(proportional.has_value());
  EXPECT_NEAR(only_gpu(*proportional)[Engine::sm].busy_seconds.value(), 0.1, kExact);
  EXPECT_EQ(only_gpu(query(series, {kA}, 10.25, 11))[Engine::sm].busy_seconds, 0.0);
}

TEST(Attribution, APeriodWhoseNeighbourWasBusyIsSplitInProportion) {
  const Series series = bursty_worker();  // busy from 10 to 15 s: no idle neighbour inside
  const GpuUsage task = only_gpu(query(series, {kA}, 11.1, 12.3));
  EXPECT_NEAR(task[Engine::sm].average_percent.value(), 80.0, kExact);
  EXPECT_LT(task[Engine::sm].average_percent_lower.value(), 80.0);
  EXPECT_GT(task[Engine::sm].average_percent_upper.value(), 80.0);
}

TEST(Attribution, AnAssumedPeriodLongerThanTheSamplesGapDoesNotCountTimeTwice) {
  Series series = bursty_worker();
  series.set_sample_period_us(0, kSecond);
  const std::array keys{kA};
  const auto proportional = usage(series, keys, {at(10), at(15)}, EdgeRule::proportional);
  ASSERT_TRUE(proportional.has_value());
  EXPECT_NEAR(only_gpu(*proportional)[Engine::sm].busy_seconds.value(), 4.0, kExact);
  // Only the first sample of a burst reaches back a whole (assumed) period.
  EXPECT_NEAR(only_gpu(query(series, {kA}, 9, 15))[Engine::sm].busy_seconds.value(), 4.6, kExact);
  // That period reaches 0.75 s into the idle time before the window, so the markers rule
  // takes all of its (assumed) 0.8 busy-seconds as inside, as far as they fit: 0.25 s.
  EXPECT_NEAR(only_gpu(query(series, {kA}, 10, 15))[Engine::sm].busy_seconds.value(), 4.05, kExact);
}

TEST(Attribution, AWindowShorterThanTheDriverPeriodIsFlaggedByItsBoundsWidth) {
  const Series series = bursty_worker();
  const GpuUsage short_task = only_gpu(query(series, {kA}, 11.0, 11.1));
  EXPECT_TRUE(short_task.confidence.shorter_than_sample_period);
  EXPECT_NEAR(short_task.confidence.sm_bounds_width_pp.value(), 50.0, kExact);  // 50 % to 100 %
  EXPECT_TRUE(short_task.confidence.low());
  EXPECT_NEAR(short_task[Engine::sm].average_percent.value(), 80.0, kExact);
  EXPECT_FALSE(only_gpu(query(series, {kA}, 11.0, 11.25)).confidence.low());
}

TEST(Attribution, TimeTheSamplerDidNotCoverIsFlaggedOrHasNoData) {
  const Series series = bursty_worker();
  const GpuUsage before = only_gpu(query(series, {kA}, -10, -5));
  EXPECT_EQ(before.confidence.coverage, 0.0);
  EXPECT_EQ(before[Engine::sm].average_percent, std::unexpected(Unavailable::no_data));
  EXPECT_TRUE(before.confidence.low());
  const GpuUsage straddling = only_gpu(query(series, {kA}, 55, 65));
  EXPECT_NEAR(straddling.confidence.coverage, 0.5, kExact);
  EXPECT_TRUE(straddling.confidence.low());
}

TEST(Attribution, ADeviceWhoseProcessesWereNotDrainedHasNoUtilization) {
  Series series;  // e.g. a MIG-enabled GPU, where per-process utilisation is not supported
  for (int s = 0; s <= 10; ++s) {
    series.add_device_sample(0, {.time_us = at(s), .processes_drained = false});
  }
  series.add_process_memory_sample(0, kA, {.time_us = at(1), .used_bytes = kGiB});
  const GpuUsage usage = only_gpu(query(series, {kA}, 2, 8));
  EXPECT_EQ(usage[Engine::sm].busy_seconds, std::unexpected(Unavailable::no_data));
  EXPECT_EQ(usage.memory.peak_bytes, kGiB);
}

TEST(Attribution, AGpuInMigModeSaysMigForItsUtilizationAndEnergySplit) {
  // The sampler could not drain because the driver keeps no per-process utilisation under MIG.
  Series series;
  for (int s = 0; s <= 10; ++s) {
    series.add_device_sample(0, {.time_us = at(s),
                                 .energy_joules = 100.0 * s,
                                 .processes_drained = false,
                                 .not_drained_reason = Unavailable::mig});
  }
  series.add_process_memory_sample(0, kA, {.time_us = at(1), .used_bytes = kGiB});
  const GpuUsage usage = only_gpu(query(series, {kA}, 2, 8));
  EXPECT_EQ(usage[Engine::sm].busy_seconds, std::unexpected(Unavailable::mig));
  EXPECT_EQ(usage[Engine::sm].average_percent, std::unexpected(Unavailable::mig));
  EXPECT_EQ(usage.energy.processes_joules, std::unexpected(Unavailable::mig));
  EXPECT_NEAR(*usage.energy.device_joules, 600.0, kExact);  // the GPU's own energy is known
  EXPECT_EQ(usage.memory.peak_bytes, kGiB);
  const auto shares = usage_per_process(series, 0, {at(2), at(8)});
  ASSERT_TRUE(shares);
  ASSERT_EQ(shares->size(), 1U);
  EXPECT_EQ(shares->front().sm_busy_seconds, std::unexpected(Unavailable::mig));
  EXPECT_EQ(shares->front().energy_joules, std::unexpected(Unavailable::mig));
}

TEST(Attribution, AWindowOnlyPartlyInMigModeIsNoDataNotMig) {
  // Not drained for other reasons in part of the window: MIG is not claimed for all of it.
  Series series;
  for (int s = 0; s <= 10; ++s) {
    series.add_device_sample(0,
                             {.time_us = at(s),
                              .processes_drained = false,
                              .not_drained_reason = s < 5 ? Unavailable::error : Unavailable::mig});
  }
  series.add_process_memory_sample(0, kA, {.time_us = at(1), .used_bytes = kGiB});
  const GpuUsage usage = only_gpu(query(series, {kA}, 2, 8));
  EXPECT_EQ(usage[Engine::sm].busy_seconds, std::unexpected(Unavailable::no_data));
}

// Idle 50 W; 200 W while A runs alone at 60 % SM; 250 W while B joins it at 20 %.
Series two_processes_sharing_a_gpu() {
  Series series;
  sample_device(series, 0, 30, [](int s) {
    if (s >= 10 && s < 15) return 200.0;
    if (s >= 15 && s < 20) return 250.0;
    return 50.0;
  });
  busy(series, 0, kA, 10, 20, 60);
  busy(series, 0, kB, 15, 20, 20);
  return series;
}

void expect_energy(const EnergyUse& energy, double device, double set, double others, double idle) {
  EXPECT_NEAR(energy.device_joules.value(), device, kExact);
  EXPECT_NEAR(energy.processes_joules.value(), set, kExact);
  EXPECT_NEAR(energy.other_processes_joules.value(), others, kExact);
  EXPECT_NEAR(energy.idle_joules.value(), idle, kExact);
  EXPECT_NEAR(*energy.processes_joules + *energy.other_processes_joules + *energy.idle_joules,
              *energy.device_joules, kExact);
}

TEST(Attribution, PeakPercentIsTheSetsHighestSumInOneSamplePeriod) {
  const Series series = two_processes_sharing_a_gpu();
  const GpuUsage both = only_gpu(query(series, {kA, kB}, 5, 25));
  EXPECT_EQ(both[Engine::sm].peak_percent, 80.0);      // 60 + 20 while they overlap
  EXPECT_EQ(both[Engine::memory].peak_percent, 40.0);  // 30 + 10
  EXPECT_EQ(both[Engine::encoder].peak_percent, 0.0);
  EXPECT_EQ(only_gpu(query(series, {kA}, 5, 25))[Engine::sm].peak_percent, 60.0);
  EXPECT_EQ(only_gpu(query(series, {kB}, 5, 25))[Engine::sm].peak_percent, 20.0);
  EXPECT_EQ(only_gpu(query(series, {kA, kB}, 10, 15))[Engine::sm].peak_percent, 60.0);
  // A period that only ends at the window's start lies outside it; one that crosses it counts.
  EXPECT_EQ(only_gpu(query(series, {kA, kB}, 20, 25))[Engine::sm].peak_percent, 0.0);
  EXPECT_EQ(only_gpu(query(series, {kA, kB}, 19.9, 25))[Engine::sm].peak_percent, 80.0);
  EXPECT_EQ(only_gpu(query(series, {kA, kB}, 14.9, 15.1))[Engine::sm].peak_percent, 80.0);
}

TEST(Attribution, PeakPercentIsAbsentLikeTheOtherFigures) {
  const GpuUsage before = only_gpu(query(bursty_worker(), {kA}, -10, -5));
  EXPECT_EQ(before[Engine::sm].peak_percent, std::unexpected(Unavailable::no_data));
  const GpuUsage task = only_gpu(query(bursty_worker(), {kA}, 10, 15));
  EXPECT_EQ(task[Engine::jpeg].peak_percent, std::unexpected(Unavailable::not_supported));
}

TEST(Attribution, EnergySharesAndIdleAddUpToTheDeviceDelta) {
  const Series series = two_processes_sharing_a_gpu();
  // A alone 10-15: 1000 J; together 15-20: 1250 J, split 60:20; idle 5-10 and 20-25: 500 J.
  expect_energy(only_gpu(query(series, {kA}, 5, 25)).energy, 2750, 1937.5, 312.5, 500);
  expect_energy(only_gpu(query(series, {kB}, 5, 25)).energy, 2750, 312.5, 1937.5, 500);
  expect_energy(only_gpu(query(series, {kA, kB}, 5, 25)).energy, 2750, 2250, 0, 500);
  // Off the device's sample times: 12.5-15 alone (500 J), 15-17.5 together (625 J).
  expect_energy(only_gpu(query(series, {kA}, 12.5, 17.5)).energy, 1125, 968.75, 156.25, 0);
}

TEST(Attribution, EnergyIsAbsentWithAReasonWhenItCannotBeComputed) {
  Series series;
  for (int s = 0; s <= 10; ++s) {
    series.add_device_sample(
        0, {.time_us = at(s), .energy_joules = std::unexpected(Unavailable::not_supported)});
    series.add_device_sample(1, {.time_us = at(s), .energy_joules = s < 5 ? 100.0 * s : 3.0});
  }
  busy(series, 0, kA, 1, 3, 50);
  busy(series, 1, kA, 1, 3, 50);
  const Usage usage = query(series, {kA}, 1, 8);
  ASSERT_EQ(usage.gpus.size(), 2U);
  EXPECT_EQ(usage.gpus[0].energy.device_joules, std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(usage.gpus[0].energy.idle_joules, std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(usage.gpus[1].energy.device_joules, std::unexpected(Unavailable::error));  // reset
  EXPECT_NEAR(query(series, {kA}, 1, 4).gpus[1].energy.device_joules.value(), 300.0, kExact);
  const GpuUsage late = query(series, {kA}, 2, 12).gpus[1];
  EXPECT_EQ(late.energy.device_joules, std::unexpected(Unavailable::no_data));
}

TEST(Attribution, GpuMemoryAtTheEdgesAndThePeakInside) {
  Series series;
  sample_device(series, 0, 30);
  const auto memory = [&series](double s, std::uint64_t bytes) {
    series.add_process_memory_sample(0, kA, {.time_us = at(s), .used_bytes = bytes});
  };
  memory(5, 1 * kGiB);
  memory(12, 3 * kGiB);
  memory(14, 2 * kGiB);
  memory(20, 0);
  const GpuMemoryUse task = only_gpu(query(series, {kA}, 10, 15)).memory;
  EXPECT_EQ(task.at_start_bytes, 1 * kGiB);
  EXPECT_EQ(task.peak_bytes, 3 * kGiB);
  EXPECT_EQ(task.at_end_bytes, 2 * kGiB);
  const GpuMemoryUse later = only_gpu(query(series, {kA}, 13, 16)).memory;
  EXPECT_EQ(later.at_start_bytes, 3 * kGiB);
  EXPECT_EQ(later.peak_bytes, 3 * kGiB);
  const GpuMemoryUse after = only_gpu(query(series, {kA}, 21, 25)).memory;
  EXPECT_EQ(after.peak_bytes, 0U);
  const GpuMemoryUse unsampled = only_gpu(query(series, {kA}, -5, 2)).memory;
  EXPECT_EQ(unsampled.at_start_bytes, std::unexpected(Unavailable::no_data));
  EXPECT_EQ(unsampled.at_end_bytes, 0U);
}

TEST(Attribution, TheSetsMemoryIsSummedWithoutPeaksThatNeverExisted) {
  Series series;
  sample_device(series, 0, 30);
  // B hands over to A at 10 s: at no instant did the two hold 4 GiB together.
  series.add_process_memory_sample(0, kB, {.time_us = at(5), .used_bytes = 2 * kGiB});
  series.add_process_memory_sample(0, kB, {.time_us = at(10), .used_bytes = 0});
  series.add_process_memory_sample(0, kA, {.time_us = at(10), .used_bytes = 2 * kGiB});
  series.add_process_memory_sample(0, kA, {.time_us = at(12), .used_bytes = 3 * kGiB});
  const GpuMemoryUse both = only_gpu(query(series, {kA, kB}, 6, 11)).memory;
  EXPECT_EQ(both.peak_bytes, 2 * kGiB);
  EXPECT_EQ(only_gpu(query(series, {kA, kB}, 6, 13)).memory.peak_bytes, 3 * kGiB);
}

// CPU rates: user 0.5 s/s and system 0.2 s/s during [10, 15), user 0.1 s/s otherwise.
void sample_host(Series& series, const ProcessKey& key, int seconds) {
  std::int64_t user = 7 * kSecond;
  std::int64_t system = kSecond;
  for (int s = 0; s <= seconds; ++s) {
    series.add_host_sample(key, {.time_us = at(s),
                                 .cpu_user_us = user,
                                 .cpu_system_us = system,
                                 .rss_bytes = 100 * kMiB,
                                 .peak_rss_bytes = 100 * kMiB});
    const bool busy_second = s >= 10 && s < 15;
    user += busy_second ? 500'000 : 100'000;
    system += busy_second ? 200'000 : 0;
  }
}

TEST(Attribution, CpuSecondsAreInterpolatedAtTheWindowEdges) {
  Series series;
  sample_host(series, kA, 30);
  const HostUsage task = query(series, {kA}, 10.5, 12.25).host;
  EXPECT_NEAR(task.cpu_user_seconds.value(), 0.875, kExact);
  EXPECT_NEAR(task.cpu_system_seconds.value(), 0.35, kExact);
  EXPECT_TRUE(task.complete);
  const HostUsage edge = query(series, {kA}, 9.5, 10.5).host;
  EXPECT_NEAR(edge.cpu_user_seconds.value(), 0.05 + 0.25, kExact);
  EXPECT_NEAR(edge.cpu_system_seconds.value(), 0.1, kExact);
  const HostUsage past_the_end = query(series, {kA}, 25, 35).host;
  EXPECT_NEAR(past_the_end.cpu_user_seconds.value(), 0.5, kExact);  // a lower bound
  EXPECT_FALSE(past_the_end.complete);
}

TEST(Attribution, CpuOfAProcessStartedInTheWindowCountsFromItsStart) {
  Series series;
  const ProcessKey late{.pid = 300, .start_time_us = at(2)};
  series.add_host_sample(late, {.time_us = at(3), .cpu_user_us = 400'000});
  EXPECT_NEAR(query(series, {late}, 1, 3).host.cpu_user_seconds.value(), 0.4, kExact);
  EXPECT_NEAR(query(series, {late}, 2.5, 3).host.cpu_user_seconds.value(), 0.2, kExact);
  EXPECT_TRUE(query(series, {late}, 1, 3).host.complete);

  const ProcessKey unknown_start{.pid = 301};
  series.add_host_sample(unknown_start, {.time_us = at(3), .cpu_user_us = 400'000});
  series.add_host_sample(unknown_start, {.time_us = at(4), .cpu_user_us = 500'000});
  const HostUsage unanchored = query(series, {unknown_start}, 1, 4).host;
  EXPECT_NEAR(unanchored.cpu_user_seconds.value(), 0.1, kExact);
  EXPECT_FALSE(unanchored.complete);
}

TEST(Attribution, PeakRssInsideTheWindowIncludesSpikesBetweenSamples) {
  Series series;
  const auto host = [&series](double s, std::uint64_t rss, std::uint64_t high_water) {
    series.add_host_sample(kA, {.time_us = at(s), .rss_bytes = rss, .peak_rss_bytes = high_water});
  };
  host(10, 100 * kMiB, 100 * kMiB);
  host(11, 300 * kMiB, 300 * kMiB);
  host(12, 200 * kMiB, 300 * kMiB);
  host(13, 200 * kMiB, 500 * kMiB);  // a spike between the samples at 12 and 13
  host(14, 200 * kMiB, 500 * kMiB);
  host(16, 150 * kMiB, 500 * kMiB);
  EXPECT_EQ(query(series, {kA}, 10, 12).host.peak_rss_bytes, 300 * kMiB);
  EXPECT_EQ(query(series, {kA}, 12, 14).host.peak_rss_bytes, 500 * kMiB);
  EXPECT_EQ(query(series, {kA}, 14, 16).host.peak_rss_bytes, 200 * kMiB);

  const ProcessKey late{.pid = 300, .start_time_us = at(2)};
  series.add_host_sample(late,
                         {.time_us = at(3), .rss_bytes = 10 * kMiB, .peak_rss_bytes = 50 * kMiB});
  EXPECT_EQ(query(series, {late}, 1, 4).host.peak_rss_bytes, 50 * kMiB);
}

TEST(Attribution, AHighWaterMarkFirstReadInsideTheWindowCountsOnlyItsRise) {
  // The sampler reads the mark only once a task follows the process: the first reading of
  // the window is the baseline, a rise after it happened inside the window.
  Series series;
  const auto host = [&series](double s, std::uint64_t rss, Maybe<std::uint64_t> high_water) {
    series.add_host_sample(kA, {.time_us = at(s), .rss_bytes = rss, .peak_rss_bytes = high_water});
  };
  const Maybe<std::uint64_t> unread = std::unexpected(Unavailable::not_supported);
  host(10, 100 * kMiB, unread);
  host(11, 120 * kMiB, 900 * kMiB);  // an old peak, from before the window
  host(12, 120 * kMiB, 900 * kMiB);
  EXPECT_EQ(query(series, {kA}, 10, 12).host.peak_rss_bytes, 120 * kMiB);
  host(13, 150 * kMiB, 1000 * kMiB);  // a spike between the samples at 12 and 13
  EXPECT_EQ(query(series, {kA}, 10, 13).host.peak_rss_bytes, 1000 * kMiB);
}

TEST(Attribution, OnlyTheSetsOwnProcessesAndDevicesCount) {
  Series series;
  sample_device(series, 0, 30);
  sample_device(series, 1, 30);
  const ProcessKey reused{.pid = kA.pid, .start_time_us = at(20)};
  busy(series, 1, kA, 5, 10, 50);
  busy(series, 0, reused, 21, 25, 90);
  busy(series, 0, kB, 5, 10, 30);
  const Usage usage = query(series, {kA}, 0, 30);
  ASSERT_EQ(usage.gpus.size(), 1U);
  EXPECT_EQ(usage.gpus[0].device, 1U);
  EXPECT_NEAR(usage.gpus[0][Engine::sm].busy_seconds.value(), 2.5, kExact);
  EXPECT_EQ(usage.host.cpu_user_seconds, std::unexpected(Unavailable::no_data));
}

TEST(Attribution, JpegAndOpticalFlowOnlyWhereTheDriverReportsThem) {
  Series series;
  sample_device(series, 0, 10);
  sample_device(series, 1, 10);
  busy(series, 0, kA, 1, 3, 50);
  for (TimeUs t = at(1) + kPeriod; t <= at(3); t += kPeriod) {
    series.add_process_gpu_sample(1, kA, {.time_us = t, .jpg = 30, .ofa = 0});
  }
  const Usage usage = query(series, {kA}, 1, 3);
  ASSERT_EQ(usage.gpus.size(), 2U);
  EXPECT_EQ(usage.gpus[0][Engine::jpeg].busy_seconds, std::unexpected(Unavailable::not_supported));
  EXPECT_NEAR(usage.gpus[1][Engine::jpeg].average_percent.value(), 30.0, kExact);
  EXPECT_EQ(usage.gpus[1][Engine::ofa].average_percent, 0.0);
}

TEST(Attribution, AnEmptyWindowIsAnError) {
  const Series series = bursty_worker();
  const std::vector<ProcessKey> keys{kA};
  const auto result = usage(series, keys, {.begin_us = at(5), .end_us = at(5)});
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, ErrorCode::invalid_input);
}

}  // namespace gpumeter::attribution_test
