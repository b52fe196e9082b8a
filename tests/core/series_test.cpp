// SPDX-License-Identifier: MIT
#include "core/series.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpumeter::series_test {

constexpr TimeUs kT0 = 1'700'000'000'000'000;
constexpr TimeUs kSecond = 1'000'000;

struct Point {
  TimeUs time_us = 0;
  int value = 0;
};

std::vector<TimeUs> times(const RingBuffer<Point>& buffer) {
  std::vector<TimeUs> out;
  out.reserve(buffer.size());
  for (std::size_t i = 0; i < buffer.size(); ++i) out.push_back(buffer[i].time_us);
  return out;
}

RingBuffer<Point> filled(std::size_t capacity, TimeUs count) {
  RingBuffer<Point> buffer(capacity);
  for (TimeUs t = 1; t <= count; ++t) buffer.push({t * 10, static_cast<int>(t)});
  return buffer;
}

TEST(RingBuffer, KeepsTheNewestSamplesAndNeverAllocatesPastItsCapacity) {
  const RingBuffer<Point> buffer = filled(5, 12);
  EXPECT_EQ(buffer.size(), 5U);
  EXPECT_EQ(times(buffer), (std::vector<TimeUs>{80, 90, 100, 110, 120}));
  EXPECT_EQ(buffer.front().value, 8);
  EXPECT_EQ(buffer.back().value, 12);
  EXPECT_EQ(buffer.allocated_bytes(), 5 * sizeof(Point));
}

TEST(RingBuffer, AllocatesOnlyAsSamplesArrive) {
  const RingBuffer<Point> buffer = filled(100'000, 3);
  EXPECT_EQ(buffer.size(), 3U);
  EXPECT_LT(buffer.allocated_bytes(), 100 * sizeof(Point));
}

TEST(RingBuffer, FindsTimesAtAndBetweenTheEdgesAfterWrapping) {
  const RingBuffer<Point> buffer = filled(4, 7);  // holds 40, 50, 60, 70
  EXPECT_EQ(buffer.lower_bound(0), 0U);
  EXPECT_EQ(buffer.lower_bound(40), 0U);
  EXPECT_EQ(buffer.upper_bound(40), 1U);
  EXPECT_EQ(buffer.lower_bound(55), 2U);
  EXPECT_EQ(buffer.upper_bound(55), 2U);
  EXPECT_EQ(buffer.lower_bound(70), 3U);
  EXPECT_EQ(buffer.upper_bound(70), 4U);
  EXPECT_EQ(buffer.lower_bound(71), 4U);
  EXPECT_TRUE(buffer.contains(60));
  EXPECT_FALSE(buffer.contains(30));  // dropped when the buffer wrapped
}

TEST(RingBuffer, DropsOldSamplesWhileGrowingAndWhenFull) {
  RingBuffer<Point> growing = filled(10, 4);
  growing.drop_before(25);
  EXPECT_EQ(times(growing), (std::vector<TimeUs>{30, 40}));
  growing.push({50, 5});
  EXPECT_EQ(times(growing), (std::vector<TimeUs>{30, 40, 50}));

  RingBuffer<Point> full = filled(3, 5);  // 30, 40, 50
  full.drop_before(45);
  EXPECT_EQ(times(full), (std::vector<TimeUs>{50}));
  full.push({60, 6});
  full.push({70, 7});
  full.push({80, 8});
  EXPECT_EQ(times(full), (std::vector<TimeUs>{60, 70, 80}));
  full.drop_before(1000);
  EXPECT_TRUE(full.empty());
}

TEST(RingBuffer, StorageFollowsTheSamplesHeldNotTheCapacity) {
  // A sliding window of 100 samples in a buffer that could hold 100,000.
  RingBuffer<Point> sliding(100'000);
  for (TimeUs t = 1; t <= 10'000; ++t) {
    sliding.push({t, 0});
    sliding.drop_before(t - 99);
  }
  EXPECT_EQ(sliding.size(), 100U);
  EXPECT_EQ(sliding.front().time_us, 9'901);
  EXPECT_LE(sliding.allocated_bytes(), 256 * sizeof(Point));

  RingBuffer<Point> shrinking = filled(100'000, 1'000);
  shrinking.drop_before(9'901);  // leaves 9,910 to 10,000
  EXPECT_EQ(shrinking.size(), 10U);
  EXPECT_EQ(shrinking.front().time_us, 9'910);
  EXPECT_LE(shrinking.allocated_bytes(), 32 * sizeof(Point));
  shrinking.drop_before(20'000);
  EXPECT_EQ(shrinking.allocated_bytes(), 0U);
}

TEST(Series, CapacityCoversTheHorizonAtTheInterval) {
  EXPECT_EQ(capacity_for(3600 * kSecond, kSecond), 3601U);
  EXPECT_EQ(capacity_for(3600 * kSecond, 166'667), 21'601U);
  Series series(SeriesConfig{.horizon_us = 10 * kSecond, .interval_us = kSecond});
  for (TimeUs s = 0; s < 100; ++s) series.add_device_sample(0, {.time_us = kT0 + s * kSecond});
  const RingBuffer<DeviceRecord>& samples = series.device(0)->samples();
  EXPECT_EQ(samples.size(), 11U);
  EXPECT_EQ(samples.front().time_us, kT0 + 89 * kSecond);
}

TEST(Series, DropsDuplicateAndOlderProcessSamples) {
  Series series;
  const ProcessKey a{.pid = 7, .start_time_us = kT0 - kSecond};
  const ProcessKey b{.pid = 8, .start_time_us = kT0 - kSecond};
  EXPECT_EQ(series.add_process_gpu_sample(0, a, {.time_us = kT0, .sm = 10}), Insert::stored);
  EXPECT_EQ(series.add_process_gpu_sample(0, a, {.time_us = kT0 + 2, .sm = 20}), Insert::stored);
  EXPECT_EQ(series.add_process_gpu_sample(0, a, {.time_us = kT0 + 2, .sm = 99}), Insert::duplicate);
  EXPECT_EQ(series.add_process_gpu_sample(0, a, {.time_us = kT0, .sm = 99}), Insert::duplicate);
  EXPECT_EQ(series.add_process_gpu_sample(0, a, {.time_us = kT0 + 1}), Insert::out_of_order);
  EXPECT_EQ(series.add_process_gpu_sample(0, b, {.time_us = kT0 + 2, .sm = 5}), Insert::stored);
  const FineGpuRecords& records = series.device(0)->utilization().at(a).fine();
  ASSERT_EQ(records.size(), 2U);
  EXPECT_EQ(records.back()[Engine::sm], 20);
}

TEST(Series, AReusedPidIsANewProcess) {
  Series series;
  const ProcessKey first{.pid = 7, .start_time_us = kT0};
  const ProcessKey second{.pid = 7, .start_time_us = kT0 + 60 * kSecond};
  series.add_process_gpu_sample(0, first, {.time_us = kT0 + kSecond, .sm = 10});
  series.add_process_gpu_sample(0, second, {.time_us = kT0 + 61 * kSecond, .sm = 30});
  EXPECT_EQ(series.device(0)->utilization().size(), 2U);
}

TEST(Series, ClampsPercentsAndRemembersWhichEnginesWereReported) {
  Series series;
  const ProcessKey key{.pid = 7};
  series.add_process_gpu_sample(
      0, key, {.time_us = kT0, .sm = 4'000'000'000U, .mem = 101, .enc = 100, .dec = 3});
  const ProcessGpuRecord& record = series.device(0)->utilization().at(key).fine().back();
  EXPECT_EQ(record[Engine::sm], 100);
  EXPECT_EQ(record[Engine::memory], 100);
  EXPECT_EQ(record[Engine::encoder], 100);
  EXPECT_EQ(record[Engine::decoder], 3);
  EXPECT_FALSE(record.reports(Engine::jpeg));
  EXPECT_EQ(series.device(0)->engines_reported(), kClassicEngines);

  series.add_process_gpu_sample(0, key, {.time_us = kT0 + 1, .jpg = 250, .ofa = 0});
  const ProcessGpuRecord& newer = series.device(0)->utilization().at(key).fine().back();
  EXPECT_TRUE(newer.reports(Engine::ofa));
  EXPECT_EQ(newer[Engine::jpeg], 100);
  EXPECT_EQ(series.device(0)->engines_reported(), 0x3F);
}

TEST(Series, ClampsDeviceUtilization) {
  Series series;
  series.add_device_sample(
      0, {.time_us = kT0, .utilization_gpu_percent = 140.0, .utilization_memory_percent = -3.0});
  const DeviceRecord& sample = series.device(0)->samples().back();
  EXPECT_EQ(sample.utilization_gpu_percent(), 100.0);
  EXPECT_EQ(sample.utilization_memory_percent(), 0.0);
}

TEST(DeviceRecord, KeepsEachFiguresValueOrItsReason) {
  const DeviceRecord record(
      DeviceSample{.time_us = kT0,
                   .utilization_gpu_percent = 37.0,
                   .utilization_memory_percent = std::unexpected(Unavailable::not_supported),
                   .memory_used_bytes = 85'520'809'984.0,
                   .power_watts = std::unexpected(Unavailable::gpu_lost),
                   .energy_joules = 123'456'789.012,
                   .processes_drained = false});
  EXPECT_EQ(record.time_us, kT0);
  EXPECT_EQ(record.utilization_gpu_percent(), 37.0);
  EXPECT_EQ(record.utilization_memory_percent(), std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(record.memory_used_bytes(), 85'520'809'984.0);
  EXPECT_EQ(record.power_watts(), std::unexpected(Unavailable::gpu_lost));
  EXPECT_EQ(record.energy_joules(), 123'456'789.012);  // a counter keeps every digit
  EXPECT_FALSE(record.processes_drained());
  const DeviceRecord absent(DeviceSample{.energy_joules = std::unexpected(Unavailable::no_data),
                                         .processes_drained = true});
  EXPECT_EQ(absent.energy_joules(), std::unexpected(Unavailable::no_data));
  EXPECT_EQ(absent.utilization_gpu_percent(), std::unexpected(Unavailable::error));
  EXPECT_TRUE(absent.processes_drained());
  EXPECT_NEAR(DeviceRecord(DeviceSample{.power_watts = 312.37}).power_watts().value(), 312.37,
              1e-4);
}

TEST(Series, ADrainIsSortedAndFilteredByTheLastSeenTimestamp) {
  Series series;
  const ProcessKey a{.pid = 1};
  const ProcessKey b{.pid = 2};
  EXPECT_FALSE(series.last_seen_us(0));
  const std::vector<KeyedGpuSample> first{{a, {.time_us = kT0 + 20, .sm = 2}},
                                          {a, {.time_us = kT0 + 10, .sm = 1}},
                                          {b, {.time_us = kT0 + 15, .sm = 5}}};
  EXPECT_EQ(series.add_process_gpu_samples(0, first), 3U);
  EXPECT_EQ(series.last_seen_us(0), kT0 + 20);
  // A zombie's junk: a timestamp at or before lastSeen comes back; it is dropped.
  const std::vector<KeyedGpuSample> second{{b, {.time_us = kT0 + 18, .sm = 250}},
                                           {a, {.time_us = kT0 + 20, .sm = 2}},
                                           {b, {.time_us = kT0 + 30, .sm = 6}}};
  EXPECT_EQ(series.add_process_gpu_samples(0, second), 1U);
  EXPECT_EQ(series.last_seen_us(0), kT0 + 30);
  EXPECT_EQ(series.device(0)->utilization().at(b).size(), 2U);
  EXPECT_EQ(series.device(0)->utilization().at(a).size(), 2U);
}

TEST(Series, MeasuresTheDriverPeriodFromConsecutiveSamplesOfOneProcess) {
  Series series(SeriesConfig{.default_driver_period_us = kSecond});
  const ProcessKey a{.pid = 1};
  series.add_process_gpu_sample(0, a, {.time_us = kT0});
  EXPECT_EQ(series.device(0)->sample_period_us(), kSecond);
  series.add_process_gpu_sample(0, a, {.time_us = kT0 + 3 * kSecond});  // after an idle stretch
  series.add_process_gpu_sample(0, a, {.time_us = kT0 + 3 * kSecond + 200'000});
  series.add_process_gpu_sample(0, a, {.time_us = kT0 + 3 * kSecond + 201'000});  // noise
  EXPECT_EQ(series.device(0)->sample_period_us(), 200'000);
  series.set_sample_period_us(0, 166'667);
  EXPECT_EQ(series.device(0)->sample_period_us(), 166'667);
}

TEST(Series, DroppingOldSamplesForgetsExitedProcesses) {
  Series series;
  const ProcessKey gone{.pid = 1};
  const ProcessKey alive{.pid = 2};
  series.add_host_sample(gone, {.time_us = kT0});
  series.add_host_sample(alive, {.time_us = kT0});
  series.add_host_sample(alive, {.time_us = kT0 + 2 * kSecond});
  series.add_process_memory_sample(0, gone, {.time_us = kT0, .used_bytes = 1});
  series.drop_before(kT0 + kSecond);
  EXPECT_EQ(series.host(gone), nullptr);
  ASSERT_NE(series.host(alive), nullptr);
  EXPECT_EQ(series.host(alive)->size(), 1U);
  EXPECT_TRUE(series.device(0)->memory().empty());
}

// Every series at its worst: each process busy in every driver period, its GPU memory and host
// figures changing at every reading, for three horizons, with the sampler's upkeep each round.
TEST(Series, StorageStaysWithinTheBudget) {
  const SeriesConfig config{.horizon_us = 60 * kSecond,
                            .interval_us = kSecond,
                            .shortest_driver_period_us = 250'000,
                            .fine_horizon_us = 10 * kSecond,
                            .host_bucket_us = 5 * kSecond};
  Series series(config);
  for (TimeUs q = 0; q < 4 * 180; ++q) {
    const TimeUs t = kT0 + q * 250'000;
    const auto n = static_cast<std::uint64_t>(q);
    for (std::uint32_t d = 0; d < 2; ++d) {
      for (Pid p = 1; p <= 3; ++p) {
        const ProcessKey key{.pid = p + 10 * d};
        series.add_process_gpu_sample(
            d, key, {.time_us = t, .sm = static_cast<std::uint32_t>(50 + (n % 7))});
        if (q % 4 != 0) continue;
        series.add_process_memory_sample(d, key, {.time_us = t, .used_bytes = n});
        series.add_host_sample(key, {.time_us = t, .cpu_user_us = q, .rss_bytes = n * 1024});
      }
      if (q % 4 == 0) series.add_device_sample(d, {.time_us = t});
    }
    if (q % 4 == 0) {
      series.fold_before(t - config.fine_horizon_us);
      series.drop_before(t - config.horizon_us);
    }
  }
  const SeriesBudget budget = series_budget(config, 2, 3);
  std::size_t fine = 0;
  std::size_t coarse = 0;
  for (const auto& [index, device] : series.devices()) {
    for (const auto& [key, tiers] : device.utilization()) {
      fine += tiers.fine().allocated_bytes();
      coarse += tiers.coarse().allocated_bytes();
      EXPECT_GT(tiers.coarse().size(), 40U);  // the horizon's buckets beyond the fine horizon
    }
  }
  EXPECT_LE(fine, budget.fine_utilization_bytes);
  EXPECT_LE(coarse, budget.coarse_utilization_bytes);
  EXPECT_LE(series.allocated_bytes(), budget.total_bytes());
}

// docs/attribution.md quotes these figures; when a sample type changes, update the page.
TEST(Series, TheDocumentedBudgetOfTheDefaultConfiguration) {
  const SeriesBudget budget = series_budget(SeriesConfig{}, 8, 64);
  EXPECT_EQ(budget.gpu_record_bytes, 8U);
  EXPECT_EQ(budget.media_record_bytes, 8U);
  EXPECT_EQ(budget.memory_sample_bytes, 16U);
  EXPECT_EQ(budget.device_record_bytes, 40U);
  EXPECT_EQ(budget.host_record_bytes, 32U);
  EXPECT_EQ(budget.power_sample_bytes, 16U);
  EXPECT_EQ(budget.device_bytes, 1'152'320U);
  EXPECT_EQ(budget.power_bytes, 92'288U);
  EXPECT_EQ(budget.fine_utilization_bytes, 5'955'584U);
  EXPECT_EQ(budget.coarse_utilization_bytes, 29'499'392U);
  EXPECT_EQ(budget.memory_bytes, 29'507'584U);
  EXPECT_EQ(budget.fine_host_bytes, 2'506'752U);
  EXPECT_EQ(budget.coarse_host_bytes, 1'998'848U);
}

}  // namespace gpumeter::series_test
