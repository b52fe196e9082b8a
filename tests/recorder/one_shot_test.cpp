// SPDX-License-Identifier: MIT
// One-shot recording: what one reading plus the previous record give, by hand.
#include "recorder/one_shot.h"

#include <gtest/gtest.h>

namespace gpumeter::recorder::one_shot_test {

constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kPrevious = 1'767'225'600 * kSecond;  // the previous record
constexpr TimeUs kNow = kPrevious + 300 * kSecond;     // five minutes later
constexpr TimeUs kPeriod = 250'000;
constexpr std::uint64_t kGiB = 1ULL << 30;
constexpr Pid kA = 10;  // running for hours, 50 % SM over the 20 s the driver still buffers
constexpr Pid kB = 20;  // started 100 s ago, idle

GpuProcess listed(Pid pid, std::uint64_t bytes) {
  GpuProcess process;
  process.pid = pid;
  process.used_memory_bytes = bytes;
  return process;
}

HostProcess host(Pid pid, const std::string& user, TimeUs start) {
  HostProcess process;
  process.pid = pid;
  process.user = user;
  process.start_time_us = start;
  return process;
}

// A's samples at `sm` % for the `seconds` before now.
std::vector<PidGpuSample> buffered(double seconds, std::uint32_t sm) {
  std::vector<PidGpuSample> samples;
  for (TimeUs t = kNow - static_cast<TimeUs>(seconds * 1e6) + kPeriod; t <= kNow; t += kPeriod)
    samples.push_back({kA, {.time_us = t, .sm = sm}});
  return samples;
}

OneShotReading reading(Maybe<std::vector<PidGpuSample>> drained) {
  OneShotReading r;
  r.snapshot.time_us = kNow;
  r.snapshot.gpus.devices.resize(1);
  Device& gpu = r.snapshot.gpus.devices[0];
  gpu.identity.uuid = "GPU-0";
  gpu.state[DeviceMetric::energy] = 130'000.0;
  gpu.processes = std::vector<GpuProcess>{listed(kA, kGiB), listed(kB, 2 * kGiB)};
  r.snapshot.processes.emplace(kA, host(kA, "alice", kPrevious - 7200 * kSecond));
  r.snapshot.processes.emplace(kB, host(kB, "bob", kNow - 100 * kSecond));
  r.drains.emplace(0, std::move(drained));
  return r;
}

const PreviousRecord kBefore{.time_us = kPrevious, .energy_joules = {{"GPU-0", 100'000.0}}};

const store::ProcessInterval& of(const OneShotRecords& records, Pid pid) {
  for (const store::ProcessInterval& interval : records.intervals) {
    if (interval.process.pid == pid) return interval;
  }
  ADD_FAILURE() << "no interval of pid " << pid;
  return records.intervals.front();
}

TEST(OneShot, ABufferShorterThanTheIntervalIsExtendedAtItsAverage) {
  const OneShotRecords records = one_shot_records(reading(buffered(20, 50)), kBefore);
  ASSERT_EQ(records.devices.size(), 1U);
  ASSERT_EQ(records.samples.size(), 1U);
  EXPECT_EQ(records.samples[0].time_us, kNow);
  ASSERT_EQ(records.intervals.size(), 2U);
  const store::ProcessInterval& a = of(records, kA);
  EXPECT_EQ(a.begin_us, kPrevious);
  EXPECT_EQ(a.end_us, kNow);
  EXPECT_DOUBLE_EQ(a.held_seconds, 300.0);
  EXPECT_NEAR(a.sm_busy_seconds, 150.0, 1e-6);  // 50 % over the 20 s covered, for 300 s
  EXPECT_EQ(a.peak_memory_bytes, kGiB);
  EXPECT_NEAR(a.energy_joules, 30'000.0 * 150.0 / 300.0, 1e-6);
  EXPECT_EQ(a.process.user, "alice");
  EXPECT_EQ(a.process.start_time_us, kPrevious - 7200 * kSecond);
  const store::ProcessInterval& b = of(records, kB);
  EXPECT_EQ(b.begin_us, kNow - 100 * kSecond) << "held from its start";
  EXPECT_DOUBLE_EQ(b.held_seconds, 100.0);
  EXPECT_EQ(b.sm_busy_seconds, 0.0);
  EXPECT_EQ(b.energy_joules, 0.0);
  ASSERT_EQ(records.csv.size(), 2U);
  EXPECT_EQ(records.csv[0],
            (CsvRow{.timestamp_us = kPrevious, .user = "alice", .pid = kA, .usage_percent = 50}));
  EXPECT_EQ(records.csv[1].usage_percent, 0);
}

TEST(OneShot, ABufferThatReachesTheLastRecordIsTakenAsItIs) {
  // Busy at 80 % only during the last 10 s, and the buffer reaches back past the previous record.
  std::vector<PidGpuSample> drained{{kA, {.time_us = kPrevious + kPeriod, .sm = 0}}};
  for (const PidGpuSample& s : buffered(10, 80)) drained.push_back(s);
  const OneShotRecords records = one_shot_records(reading(drained), kBefore);
  // Exact: the samples cover the whole interval, up to the newest period's end.
  EXPECT_NEAR(of(records, kA).sm_busy_seconds, 0.8 * 10.0, 1e-6);
}

TEST(OneShot, OneMeanSamplePerProcessGivesThatMeanWhereverItsStampFalls) {
  // A driver that answers each process's mean since lastSeen, stamped at the newest period's
  // end: at the snapshot's time, before it, or after it (the drain follows the snapshot, on a
  // loaded machine by more than a period).
  for (const TimeUs stamp : {kNow, kNow - kPeriod / 3, kNow + kPeriod / 2, kNow + 3 * kPeriod}) {
    const std::vector<PidGpuSample> drained{{kA, {.time_us = stamp, .sm = 60}}};
    const OneShotRecords records = one_shot_records(reading(drained), kBefore);
    EXPECT_NEAR(of(records, kA).sm_busy_seconds, 0.6 * 300.0, 1e-6) << stamp - kNow;
    EXPECT_EQ(of(records, kB).sm_busy_seconds, 0.0);
  }
}

TEST(OneShot, NothingBusyMeansIdle) {
  const OneShotRecords records = one_shot_records(reading(std::vector<PidGpuSample>{}), kBefore);
  EXPECT_EQ(of(records, kA).sm_busy_seconds, 0.0);
  EXPECT_DOUBLE_EQ(of(records, kA).held_seconds, 300.0);
}

TEST(OneShot, AnUnreadableBufferLeavesSmAtZero) {
  const OneShotRecords records =
      one_shot_records(reading(std::unexpected(Unavailable::not_supported)), kBefore);
  EXPECT_EQ(of(records, kA).sm_busy_seconds, 0.0);
  EXPECT_EQ(of(records, kA).energy_joules, 0.0);
}

TEST(OneShot, TheFirstRecordOrOneAfterALongGapOnlyReadsTheGpus) {
  for (const std::optional<PreviousRecord>& previous :
       {std::optional<PreviousRecord>{},
        std::optional(PreviousRecord{.time_us = kNow - 2 * 3600 * kSecond})}) {
    const OneShotRecords records = one_shot_records(reading(buffered(20, 50)), previous);
    EXPECT_EQ(records.devices.size(), 1U);
    EXPECT_EQ(records.samples.size(), 1U);
    EXPECT_TRUE(records.intervals.empty());
    EXPECT_TRUE(records.csv.empty());
  }
}

TEST(OneShot, OnAGpuInMigModeTheSmUseIsUnknownNotIdle) {
  // The driver refuses per-process utilisation in MIG mode; the processes still held memory.
  const OneShotRecords records =
      one_shot_records(reading(std::unexpected(Unavailable::mig)), kBefore);
  ASSERT_EQ(records.intervals.size(), 2U);
  for (const store::ProcessInterval& interval : records.intervals) {
    EXPECT_EQ(interval.sm_unknown, Unavailable::mig);
    EXPECT_EQ(interval.sm_busy_seconds, 0.0);
    EXPECT_EQ(interval.energy_joules, 0.0);  // shared by SM use, so unknown too
    EXPECT_TRUE(store::validate(interval));
  }
  EXPECT_DOUBLE_EQ(of(records, kA).held_seconds, 300.0);
  ASSERT_EQ(records.csv.size(), 2U);
  EXPECT_FALSE(records.csv[0].usage_percent);
}

TEST(OneShot, ADrainThatFailedForAnotherReasonIsNotCalledMig) {
  const OneShotRecords records =
      one_shot_records(reading(std::unexpected(Unavailable::error)), kBefore);
  for (const store::ProcessInterval& interval : records.intervals)
    EXPECT_FALSE(interval.sm_unknown);
}

}  // namespace gpumeter::recorder::one_shot_test
