// SPDX-License-Identifier: MIT
// The sampler's round against scripted sources: what it passes as lastSeenTimeStamp, which
// samples it stores under which key, how it treats lost GPUs, processes that leave, reused
// pids and failing sources, and what it publishes.
#include "core/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "support/sampler_fakes.h"

namespace gpumeter::sampler_test {

using testing::busy;
using testing::on_gpu;
using testing::ScriptedGpus;
using testing::ScriptedHost;

constexpr TimeUs kT0 = 1'700'000'000'000'000;
constexpr TimeUs kSecond = 1'000'000;
constexpr std::uint64_t kGiB = 1ULL << 30;
constexpr TimeUs kStart10 = kT0 - 3600 * kSecond;  // pid 10's start time
constexpr TimeUs kStart20 = kT0 - 60 * kSecond;    // pid 20's start time

class SamplerTest : public ::testing::Test {
 protected:
  SamplerTest() {
    gpus_.gpus.resize(1);
    gpus_.gpus[0].processes = std::vector<GpuProcess>{on_gpu(10, kGiB), on_gpu(20, 2 * kGiB)};
    host_.processes[10] = {kStart10, {.cpu_user_us = 5, .cpu_system_us = 1}};
    host_.processes[20] = {kStart20, {.cpu_user_us = 7, .cpu_system_us = 2}};
  }

  Sampler& sampler() {
    if (!sampler_) sampler_ = std::make_unique<Sampler>(gpus_, host_, config_);
    return *sampler_;
  }

  void round(TimeUs t) {
    auto done = sampler().sample_once(t);
    ASSERT_TRUE(done.has_value()) << done.error().message;
  }

  // The times of the memory samples stored for `key` on GPU `device`, with their values.
  std::vector<std::pair<TimeUs, std::uint64_t>> memory_of(std::uint32_t device,
                                                          const ProcessKey& key) {
    std::vector<std::pair<TimeUs, std::uint64_t>> out;
    sampler().inspect([&](const Series& series) {
      const DeviceSeries* gpu = series.device(device);
      if (gpu == nullptr || !gpu->memory().contains(key)) return;
      const MemoryRecords& records = gpu->memory().at(key).records();
      for (std::size_t i = 0; i < records.size(); ++i) {
        out.emplace_back(records[i].time_us, records[i].used_bytes);
      }
    });
    return out;
  }

  // When the process's GPU memory on `device` was last read.
  std::optional<TimeUs> memory_read_at(std::uint32_t device, const ProcessKey& key) {
    std::optional<TimeUs> at;
    sampler().inspect([&](const Series& series) {
      const DeviceSeries* gpu = series.device(device);
      if (gpu != nullptr && gpu->memory().contains(key)) at = gpu->memory().at(key).last_read_us();
    });
    return at;
  }

  std::size_t utilization_samples(std::uint32_t device, const ProcessKey& key) {
    std::size_t n = 0;
    sampler().inspect([&](const Series& series) {
      const DeviceSeries* gpu = series.device(device);
      if (gpu != nullptr && gpu->utilization().contains(key)) {
        n = gpu->utilization().at(key).size();
      }
    });
    return n;
  }

  std::vector<bool> drained_flags(std::uint32_t device) {
    std::vector<bool> flags;
    sampler().inspect([&](const Series& series) {
      const auto& samples = series.device(device)->samples();
      for (std::size_t i = 0; i < samples.size(); ++i)
        flags.push_back(samples[i].processes_drained());
    });
    return flags;
  }

  bool has_host_series(const ProcessKey& key) {
    bool found = false;
    sampler().inspect([&](const Series& series) { found = series.host(key) != nullptr; });
    return found;
  }

  ScriptedGpus gpus_;
  ScriptedHost host_;
  SamplerConfig config_;
  std::unique_ptr<Sampler> sampler_;
};

TEST_F(SamplerTest, PublishesOneSnapshotPerRound) {
  EXPECT_EQ(sampler().snapshot(), nullptr);
  round(kT0);
  auto first = sampler().snapshot();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->time_us, kT0);
  ASSERT_EQ(first->gpus.devices.size(), 1U);
  EXPECT_EQ(first->processes.size(), 2U);
  round(kT0 + kSecond);
  EXPECT_EQ(sampler().snapshot()->time_us, kT0 + kSecond);
  EXPECT_EQ(first->time_us, kT0);  // a published snapshot never changes
  EXPECT_EQ(gpus_.reads, 2);
}

TEST_F(SamplerTest, TheObserverSeesEveryPublishedSnapshotAfterTheRound) {
  std::vector<TimeUs> seen;
  std::vector<bool> stored;
  config_.on_snapshot = [&](const Snapshot& snapshot) {
    seen.push_back(snapshot.time_us);
    // The round's samples are stored and its locks released: asking the sampler works.
    stored.push_back(memory_read_at(0, {10, kStart10}) == snapshot.time_us &&
                     sampler().key_for(10).has_value());
  };
  round(kT0);
  round(kT0 + kSecond);
  EXPECT_EQ(seen, (std::vector<TimeUs>{kT0, kT0 + kSecond}));
  EXPECT_EQ(stored, (std::vector<bool>{true, true}));
  gpus_.fail = true;  // a round that publishes nothing calls nothing
  EXPECT_FALSE(sampler().sample_once(kT0 + 2 * kSecond).has_value());
  EXPECT_EQ(seen.size(), 2U);
}

TEST_F(SamplerTest, LastSeenIsTheNewestStoredSampleOrAPeriodBeforeTheLastDrain) {
  gpus_.gpus[0].buffered = std::vector{busy(10, kT0 - 500'000, 80), busy(20, kT0 - 333'333, 40)};
  round(kT0);
  gpus_.gpus[0].buffered->push_back(busy(10, kT0 + 500'000, 80));
  round(kT0 + kSecond);
  round(kT0 + 2 * kSecond);
  round(kT0 + 3 * kSecond);
  const auto& passed = gpus_.gpus[0].last_seen_passed;
  ASSERT_EQ(passed.size(), 4U);
  // Never the whole buffer: the first drain asks for the last interval.
  EXPECT_EQ(passed[0], kT0 - kSecond);
  EXPECT_EQ(passed[1], kT0 - 333'333);  // the newest stored sample
  EXPECT_EQ(passed[2], kT0 + 500'000);
  // Nothing newer came: the last end of a period (here the shortest gap of one process's
  // samples, 1 s) on the newest stamp's grid at which the previous drain had it (a quarter
  // period after its end).
  EXPECT_EQ(passed[3], kT0 + 500'000 + kSecond);
  EXPECT_EQ(utilization_samples(0, {10, kStart10}), 2U);
  EXPECT_EQ(utilization_samples(0, {20, kStart20}), 1U);
}

TEST_F(SamplerTest, DrainedUnlessTheDriverCannotTell) {
  gpus_.gpus.resize(3);
  gpus_.gpus[1].buffered = std::unexpected(Unavailable::not_supported);  // MIG
  gpus_.gpus[2].buffered = std::unexpected(Unavailable::error);
  round(kT0);
  EXPECT_EQ(drained_flags(0), std::vector{true});  // nothing busy (NOT_FOUND) still counts
  EXPECT_EQ(drained_flags(1), std::vector{false});
  EXPECT_EQ(drained_flags(2), std::vector{false});
  const SamplerStats stats = sampler().stats();
  EXPECT_EQ(stats.utilization_drain.calls, 3U);
  EXPECT_EQ(stats.utilization_drain.failures, 1U);  // not_supported is no failure
  EXPECT_EQ(stats.utilization_drain.last_failure_us, kT0);
  EXPECT_NE(stats.utilization_drain.last_error.find("GPU 2"), std::string::npos);
}

TEST_F(SamplerTest, AProcessLeavingTheListGetsOneZeroMemorySample) {
  round(kT0);
  gpus_.gpus[0].processes = std::vector<GpuProcess>{on_gpu(10, kGiB)};
  round(kT0 + kSecond);
  round(kT0 + 2 * kSecond);
  using Samples = std::vector<std::pair<TimeUs, std::uint64_t>>;
  EXPECT_EQ(memory_of(0, {20, kStart20}), (Samples{{kT0, 2 * kGiB}, {kT0 + kSecond, 0}}));
  // An amount that does not change is stored once; each round's reading only moves its time.
  EXPECT_EQ(memory_of(0, {10, kStart10}), (Samples{{kT0, kGiB}}));
  EXPECT_EQ(memory_read_at(0, {10, kStart10}), kT0 + 2 * kSecond);
  EXPECT_EQ(memory_read_at(0, {20, kStart20}), kT0 + kSecond);
}

TEST_F(SamplerTest, GpuMemoryNowReadsTheGpusTheNewestRoundListedTheProcessOn) {
  using Held = std::map<std::uint32_t, std::uint64_t>;
  EXPECT_EQ(sampler().gpu_memory_now(10), std::unexpected(Unavailable::no_data)) << "no round";
  gpus_.gpus.resize(3);
  gpus_.gpus[2].processes = std::vector<GpuProcess>{on_gpu(10, kGiB)};
  round(kT0);
  // Since the round, pid 10 grew on GPU 2 and took up GPU 1: GPU 1 is not read until a round
  // lists it there.
  gpus_.gpus[0].processes = std::vector<GpuProcess>{on_gpu(10, 3 * kGiB), on_gpu(20, 2 * kGiB)};
  gpus_.gpus[1].processes = std::vector<GpuProcess>{on_gpu(10, kGiB)};
  gpus_.gpus[2].processes = std::vector<GpuProcess>{on_gpu(10, 4 * kGiB)};
  EXPECT_EQ(sampler().gpu_memory_now(10), (Held{{0, 3 * kGiB}, {2, 4 * kGiB}}));
  EXPECT_EQ(gpus_.memory_asked.back(), (std::vector<std::uint32_t>{0, 2}));
  // A process no GPU listed is not read at all.
  const std::size_t asked = gpus_.memory_asked.size();
  EXPECT_EQ(sampler().gpu_memory_now(30), Held{});
  EXPECT_EQ(gpus_.memory_asked.size(), asked);
}

TEST_F(SamplerTest, AnUnreadableListSaysNothingAboutWhoLeft) {
  round(kT0);
  gpus_.gpus[0].processes = std::unexpected(Unavailable::error);
  round(kT0 + kSecond);
  EXPECT_EQ(memory_of(0, {20, kStart20}).size(), 1U);
  gpus_.gpus[0].processes = std::vector<GpuProcess>{on_gpu(10, kGiB)};
  round(kT0 + 2 * kSecond);
  EXPECT_EQ(memory_of(0, {20, kStart20}).back(), std::pair(kT0 + 2 * kSecond, std::uint64_t{0}));
}

TEST_F(SamplerTest, ALostGpuIsNotDrainedAndTheOthersCarryOn) {
  gpus_.gpus.resize(2);
  gpus_.gpus[1].processes = std::vector<GpuProcess>{on_gpu(20, kGiB)};
  round(kT0);
  gpus_.gpus[1].lost = true;
  gpus_.gpus[0].buffered = std::vector{busy(10, kT0 + 500'000, 90)};
  round(kT0 + kSecond);
  round(kT0 + 2 * kSecond);
  EXPECT_EQ(gpus_.gpus[1].last_seen_passed.size(), 1U);
  EXPECT_EQ(gpus_.gpus[0].last_seen_passed.size(), 3U);
  EXPECT_EQ(drained_flags(0), (std::vector{true, true, true}));
  EXPECT_EQ(drained_flags(1), (std::vector{true, false, false}));
  EXPECT_EQ(utilization_samples(0, {10, kStart10}), 1U);
  using Samples = std::vector<std::pair<TimeUs, std::uint64_t>>;
  EXPECT_EQ(memory_of(1, {20, kStart20}), (Samples{{kT0, kGiB}, {kT0 + kSecond, 0}}));
  EXPECT_EQ(sampler().stats().utilization_drain.failures, 0U);
}

TEST_F(SamplerTest, AReusedPidIsANewProcess) {
  round(kT0);
  const TimeUs restarted = kT0 + 500'000;
  host_.processes[10].start_us = restarted;
  gpus_.gpus[0].buffered = std::vector{busy(10, kT0 + 800'000, 70)};
  round(kT0 + kSecond);
  using Samples = std::vector<std::pair<TimeUs, std::uint64_t>>;
  EXPECT_EQ(memory_of(0, {10, kStart10}), (Samples{{kT0, kGiB}, {kT0 + kSecond, 0}}));
  EXPECT_EQ(memory_of(0, {10, restarted}), (Samples{{kT0 + kSecond, kGiB}}));
  EXPECT_EQ(utilization_samples(0, {10, restarted}), 1U);
  EXPECT_EQ(utilization_samples(0, {10, kStart10}), 0U);
  EXPECT_EQ(sampler().stats().pid_reuses, 1U);
  EXPECT_EQ(sampler().key_for(10), (ProcessKey{10, restarted}));
}

TEST_F(SamplerTest, SamplesOfAnExitedProcessKeepItsKey) {
  round(kT0);
  host_.processes.erase(20);
  gpus_.gpus[0].processes = std::vector<GpuProcess>{on_gpu(10, kGiB)};
  gpus_.gpus[0].buffered = std::vector{busy(20, kT0 + 900'000, 60)};
  round(kT0 + kSecond);
  EXPECT_EQ(utilization_samples(0, {20, kStart20}), 1U);
  EXPECT_EQ(sampler().key_for(20), std::nullopt);
}

TEST_F(SamplerTest, ABusyProcessMissingFromTheListIsDescribed) {
  const TimeUs start30 = kT0 - 5 * kSecond;
  host_.processes[30] = {start30, {.cpu_user_us = 3}};
  gpus_.gpus[0].buffered = std::vector{busy(30, kT0 - 100'000, 55)};
  round(kT0);
  EXPECT_EQ(utilization_samples(0, {30, start30}), 1U);
  EXPECT_TRUE(has_host_series({30, start30}));
}

TEST_F(SamplerTest, AnUnknownStartTimeKeysWithZero) {
  host_.processes[20].start_us.reset();
  round(kT0);
  EXPECT_EQ(memory_of(0, {20, 0}).size(), 1U);
  EXPECT_EQ(sampler().key_for(20), (ProcessKey{20, 0}));
}

TEST_F(SamplerTest, HostSamplesForGpuProcessesAndWatchedOnes) {
  host_.processes[50] = {kT0 - kSecond,
                         {.cpu_user_us = 11,
                          .cpu_system_us = 4,
                          .rss_bytes = 1000 * 1024,
                          .peak_rss_bytes = 2000 * 1024}};
  host_.processes[60] = {kT0 - kSecond, {}};
  sampler().watch({50, kT0 - kSecond});
  sampler().watch({60, kT0 - 9 * kSecond});  // pid 60 now belongs to another process
  round(kT0);
  EXPECT_TRUE(has_host_series({10, kStart10}));
  EXPECT_TRUE(has_host_series({20, kStart20}));
  EXPECT_FALSE(has_host_series({60, kT0 - 9 * kSecond}));
  EXPECT_FALSE(has_host_series({60, kT0 - kSecond}));
  sampler().inspect([](const Series& series) {
    const HostSeries* host = series.host({50, kT0 - kSecond});
    ASSERT_NE(host, nullptr);
    const HostRecord& record = host->records().back();
    EXPECT_EQ(record.time_us, kT0);
    EXPECT_EQ(record.cpu_user_us, 11);
    EXPECT_EQ(record.cpu_system_us, 4);
    EXPECT_EQ(record.rss_bytes(), 1000U * 1024);
    EXPECT_EQ(record.peak_rss_bytes(), 2000U * 1024);
  });
  sampler().unwatch({50, kT0 - kSecond});
  round(kT0 + kSecond);
  sampler().inspect([](const Series& series) {
    EXPECT_EQ(series.host({50, kT0 - kSecond})->last_read_us(), kT0);
    EXPECT_EQ(series.host({10, kStart10})->last_read_us(), kT0 + kSecond);
  });
}

TEST_F(SamplerTest, TheHighWaterMarkIsReadOnlyForWatchedProcesses) {
  host_.processes[10].usage = {.rss_bytes = 100 * 1024, .peak_rss_bytes = 300 * 1024};
  host_.processes[50] = {kT0 - kSecond, {.rss_bytes = 1000 * 1024, .peak_rss_bytes = 2000 * 1024}};
  sampler().watch({50, kT0 - kSecond});
  round(kT0);
  EXPECT_EQ(host_.peak_usages, 1);
  sampler().inspect([](const Series& series) {
    const HostRecord& gpu_process = series.host({10, kStart10})->records().back();
    EXPECT_EQ(gpu_process.rss_bytes(), 100U * 1024);
    EXPECT_FALSE(gpu_process.peak_rss_bytes().has_value());
    EXPECT_EQ(series.host({50, kT0 - kSecond})->records().back().peak_rss_bytes(), 2000U * 1024);
  });
  sampler().watch({10, kStart10});  // a task begins in the GPU process
  round(kT0 + kSecond);
  EXPECT_EQ(host_.peak_usages, 3);
  sampler().inspect([](const Series& series) {
    EXPECT_EQ(series.host({10, kStart10})->records().back().peak_rss_bytes(), 300U * 1024);
  });
}

TEST_F(SamplerTest, AFailedGpuReadIsCountedAndTheSnapshotKept) {
  host_.processes[50] = {kT0 - kSecond, {.cpu_user_us = 1}};
  sampler().watch({50, kT0 - kSecond});
  round(kT0);
  gpus_.fail = true;
  auto failed = sampler().sample_once(kT0 + kSecond);
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().code, ErrorCode::driver_failed);
  EXPECT_EQ(sampler().snapshot()->time_us, kT0);
  const SamplerStats stats = sampler().stats();
  EXPECT_EQ(stats.rounds, 2U);
  EXPECT_EQ(stats.last_round_us, kT0 + kSecond);
  EXPECT_EQ(stats.gpu_read.calls, 2U);
  EXPECT_EQ(stats.gpu_read.failures, 1U);
  EXPECT_EQ(stats.gpu_read.last_success_us, kT0);
  EXPECT_EQ(stats.gpu_read.last_failure_us, kT0 + kSecond);
  EXPECT_EQ(stats.gpu_read.last_error, "scripted failure");
  sampler().inspect([](const Series& series) {  // host sampling went on
    EXPECT_EQ(series.host({50, kT0 - kSecond})->last_read_us(), kT0 + kSecond);
  });
}

TEST_F(SamplerTest, DropsWhatIsOlderThanTheHorizon) {
  config_.series.horizon_us = 10 * kSecond;
  for (int i = 0; i <= 30; ++i) {
    host_.processes[10].usage.cpu_user_us = i;  // pid 20's figures stay as they are
    round(kT0 + i * kSecond);
  }
  sampler().inspect([](const Series& series) {
    EXPECT_EQ(series.device(0)->samples().front().time_us, kT0 + 20 * kSecond);
    EXPECT_EQ(series.host({10, kStart10})->records().front().time_us, kT0 + 20 * kSecond);
    // What still holds at the horizon's start is kept: pid 20 has not changed since kT0.
    EXPECT_EQ(series.host({20, kStart20})->records().front().time_us, kT0);
    EXPECT_EQ(series.device(0)->memory().at({20, kStart20}).records().front().time_us, kT0);
  });
  EXPECT_GT(sampler().stats().series_bytes, 0U);
}

TEST_F(SamplerTest, TheIntervalSizesTheSeries) {
  config_.interval = std::chrono::milliseconds(500);
  sampler().inspect([](const Series& series) { EXPECT_EQ(series.config().interval_us, 500'000); });
}

TEST_F(SamplerTest, IntervalsBelowTheMinimumAreRaised) {
  config_.interval = std::chrono::milliseconds(5);
  sampler().inspect([](const Series& series) { EXPECT_EQ(series.config().interval_us, 100'000); });
}

TEST_F(SamplerTest, UsageAnswersFromTheSeries) {
  for (int i = 0; i <= 4; ++i) {
    std::vector<PidGpuSample> drain;
    for (TimeUs k = 1; k <= 4; ++k) {
      drain.push_back(busy(10, kT0 + (i - 1) * kSecond + k * 250'000, 60));
    }
    gpus_.gpus[0].buffered = drain;
    round(kT0 + i * kSecond);
  }
  const ProcessKey key{10, kStart10};
  auto used = sampler().usage(std::span(&key, 1), Window{kT0 + kSecond, kT0 + 4 * kSecond});
  ASSERT_TRUE(used.has_value());
  ASSERT_EQ(used->gpus.size(), 1U);
  EXPECT_DOUBLE_EQ(used->gpus[0][Engine::sm].average_percent.value_or(-1), 60.0);
  EXPECT_EQ(used->gpus[0].memory.peak_bytes, kGiB);
  EXPECT_FALSE(sampler().usage(std::span(&key, 1), Window{kT0, kT0}).has_value());
}

TEST_F(SamplerTest, WaitForRoundSeesTheRoundsTime) {
  EXPECT_FALSE(sampler().wait_for_round(kT0, std::chrono::milliseconds(0)));
  round(kT0);
  EXPECT_TRUE(sampler().wait_for_round(kT0, std::chrono::milliseconds(0)));
  EXPECT_FALSE(sampler().wait_for_round(kT0 + 1, std::chrono::milliseconds(0)));
}

TEST_F(SamplerTest, CompleteAfterAddsTheLongestDriverPeriod) {
  EXPECT_EQ(sampler().complete_after(kT0), kT0 + kSecond);  // nothing measured yet
  gpus_.gpus.resize(2);
  gpus_.gpus[0].buffered = std::vector{busy(10, kT0 - 500'000, 80), busy(10, kT0 - 250'000, 80)};
  gpus_.gpus[1].buffered = std::vector{busy(20, kT0 - 500'000, 80), busy(20, kT0 - 100'000, 80)};
  round(kT0);
  EXPECT_EQ(sampler().complete_after(kT0), kT0 + 400'000);
}

// Device samples every 250 ms, from t0 - 1 s to t0; utilisation and power alike.
std::vector<BufferedSample> every_quarter_second(double value) {
  std::vector<BufferedSample> samples;
  for (TimeUs t = kT0 - kSecond; t <= kT0; t += 250'000) samples.push_back({t, value});
  return samples;
}

TEST_F(SamplerTest, ThePeriodIsLearnedFromDeviceSamplesWhileNoProcessIsBusy) {
  gpus_.gpus[0].utilization = every_quarter_second(0);
  round(kT0);
  sampler().inspect(
      [](const Series& series) { EXPECT_EQ(series.device(0)->sample_period_us(), 250'000); });
  EXPECT_EQ(sampler().complete_after(kT0), kT0 + 250'000);
  round(kT0 + kSecond);
  EXPECT_EQ(gpus_.gpus[0].utilization_drains, 1);  // known: not drained again
}

TEST_F(SamplerTest, TheMedianGapIsThePeriodDespiteAMissedSample) {
  gpus_.gpus[0].utilization =
      std::vector<BufferedSample>{{kT0 - 900'000, 0},
                                  {kT0 - 700'000, 0},
                                  {kT0 - 500'000, 0},
                                  {kT0 - 100'000, 0}};  // one missing at t0 - 300 ms
  round(kT0);
  sampler().inspect(
      [](const Series& series) { EXPECT_EQ(series.device(0)->sample_period_us(), 200'000); });
}

TEST_F(SamplerTest, PowerSamplesAreStoredOnceAndAnUnsupportedBufferIsNotAskedAgain) {
  gpus_.gpus.resize(2);
  gpus_.gpus[0].power = every_quarter_second(120);
  round(kT0);
  round(kT0 + kSecond);  // nothing newer: nothing stored twice
  sampler().inspect([](const Series& series) {
    const RingBuffer<PowerSample>& power = series.device(0)->power();
    ASSERT_EQ(power.size(), 5U);
    EXPECT_EQ(power.front().time_us, kT0 - kSecond);
    EXPECT_DOUBLE_EQ(power.back().watts, 120);
    EXPECT_EQ(series.device(0)->power_period_us(), 250'000);
    EXPECT_TRUE(series.device(1)->power().empty());
  });
  EXPECT_EQ(gpus_.gpus[0].power_drains, 2);
  EXPECT_EQ(gpus_.gpus[1].power_drains, 1);  // NOT_SUPPORTED is remembered
  EXPECT_EQ(gpus_.gpus[1].utilization_drains, 1);
}

TEST_F(SamplerTest, AFailedPowerDrainIsTriedAgain) {
  gpus_.gpus[0].power = std::unexpected(Unavailable::error);
  round(kT0);
  gpus_.gpus[0].power = every_quarter_second(80);
  round(kT0 + kSecond);
  EXPECT_EQ(gpus_.gpus[0].power_drains, 2);
  sampler().inspect([](const Series& s) { EXPECT_EQ(s.device(0)->power().size(), 5U); });
}

TEST_F(SamplerTest, CompleteAfterWaitsForPowerSamplesToReachTheNextReading) {
  gpus_.gpus[0].power = every_quarter_second(80);  // up to t0
  gpus_.gpus[0].utilization = every_quarter_second(0);
  round(kT0 - 500'000);
  // Before a reading after it: the driver period only.
  EXPECT_EQ(sampler().complete_after(kT0 - 1'000), kT0 - 1'000 + 250'000);
  round(kT0 + 100'000);  // the reading after t0 - 1 ms; power reaches t0 only
  EXPECT_EQ(sampler().complete_after(kT0 - 1'000), kT0 + 100'000 + 250'000);
  // The reading after t0 - 600 ms is at t0 - 500 ms, which the power samples reach.
  EXPECT_EQ(sampler().complete_after(kT0 - 600'000), kT0 - 600'000 + 250'000);
}

TEST_F(SamplerTest, KeyForAsksTheHostEachTime) {
  EXPECT_EQ(sampler().key_for(10), (ProcessKey{10, kStart10}));
  EXPECT_EQ(sampler().key_for(99), std::nullopt);
  host_.processes[10].start_us = kT0;
  EXPECT_EQ(sampler().key_for(10), (ProcessKey{10, kT0}));
}

}  // namespace gpumeter::sampler_test
