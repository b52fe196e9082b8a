// SPDX-License-Identifier: MIT
// GPU-seconds held: the time a process held memory on a GPU within a window, from the
// change-only memory series, checked against timelines worked out by hand.
#include "core/held_time.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gpumeter::held_time_test {

constexpr TimeUs kT0 = 1'700'000'000'000'000;
constexpr std::uint64_t kGiB = 1ULL << 30;
const ProcessKey kA{.pid = 100, .start_time_us = kT0 - 3'600'000'000};
const ProcessKey kB{.pid = 200, .start_time_us = kT0 - 60'000'000};

TimeUs at(double seconds) {
  return kT0 + static_cast<TimeUs>(std::llround(seconds * 1e6));
}

Window between(double from, double to) {
  return {.begin_us = at(from), .end_us = at(to)};
}

// Readings every `step` seconds over [from, to]: `bytes(t)` held at t.
template <class Bytes>
void read_memory(Series& series, std::uint32_t device, const ProcessKey& key, double from,
                 double to, double step, Bytes bytes) {
  for (double t = from; t <= to + 1e-9; t += step) {
    series.add_process_memory_sample(device, key, {.time_us = at(t), .used_bytes = bytes(t)});
  }
}

class HeldTimeTest : public ::testing::Test {
 protected:
  HeldTimeTest() {
    // A holds 1 GiB from 1 s, 2 GiB from 3 s, leaves the list at 5 s (the sampler stores 0),
    // comes back with 1 GiB at 8 s and is last read at 10 s.
    read_memory(series_, 0, kA, 1, 10, 1, [](double t) -> std::uint64_t {
      if (t < 2.5) return kGiB;
      if (t < 4.5) return 2 * kGiB;
      return t < 7.5 ? 0 : kGiB;
    });
  }

  Series series_;
};

TEST_F(HeldTimeTest, CountsEveryStretchOfHoldingInTheWindow) {
  const HeldTime held = held_time(series_, kA, 0, between(0, 20));
  EXPECT_DOUBLE_EQ(held.seconds, 4.0 + 2.0);  // [1, 5) and [8, 10]
  EXPECT_EQ(held.first_us, at(1));
  EXPECT_EQ(held.last_us, at(10));
}

TEST_F(HeldTimeTest, ClipsToTheWindow) {
  const HeldTime held = held_time(series_, kA, 0, between(2.25, 4));
  EXPECT_DOUBLE_EQ(held.seconds, 1.75);
  EXPECT_EQ(held.first_us, at(2.25));
  EXPECT_EQ(held.last_us, at(4));
}

TEST_F(HeldTimeTest, AWindowWhileAwayHoldsNothing) {
  const HeldTime held = held_time(series_, kA, 0, between(5, 8));
  EXPECT_EQ(held.seconds, 0.0);
  EXPECT_FALSE(held.first_us.has_value());
  EXPECT_FALSE(held.last_us.has_value());
}

TEST_F(HeldTimeTest, AWindowThatEndsWhenTheProcessLeavesStopsThere) {
  const HeldTime held = held_time(series_, kA, 0, between(4, 6));
  EXPECT_DOUBLE_EQ(held.seconds, 1.0);
  EXPECT_EQ(held.last_us, at(5));
}

TEST_F(HeldTimeTest, NothingIsCountedPastTheLastReading) {
  // Still listed at its last reading (10 s), but the sampler has not read it since.
  const HeldTime held = held_time(series_, kA, 0, between(9, 15));
  EXPECT_DOUBLE_EQ(held.seconds, 1.0);
  EXPECT_EQ(held.last_us, at(10));
}

TEST_F(HeldTimeTest, NothingIsCountedBeforeTheFirstReading) {
  const HeldTime held = held_time(series_, kA, 0, between(0, 1.5));
  EXPECT_DOUBLE_EQ(held.seconds, 0.5);
  EXPECT_EQ(held.first_us, at(1));
}

TEST_F(HeldTimeTest, UnchangedReadingsExtendTheStretch) {
  // B holds the same amount at every reading: one stored sample, then only reading times.
  read_memory(series_, 1, kB, 0, 30, 0.5, [](double) { return kGiB; });
  ASSERT_EQ(series_.device(1)->memory().at(kB).records().size(), 1U);
  EXPECT_DOUBLE_EQ(held_time(series_, kB, 1, between(10, 20)).seconds, 10.0);
  EXPECT_DOUBLE_EQ(held_time(series_, kB, 1, between(-5, 40)).seconds, 30.0);
}

TEST_F(HeldTimeTest, OtherProcessesAndDevicesHoldNothing) {
  EXPECT_EQ(held_time(series_, kB, 0, between(0, 20)).seconds, 0.0);
  EXPECT_EQ(held_time(series_, kA, 1, between(0, 20)).seconds, 0.0);
  EXPECT_EQ(held_time(series_, kA, 7, between(0, 20)).seconds, 0.0);
}

TEST_F(HeldTimeTest, AnAmountKeptAcrossTheHorizonStillCounts) {
  // The sampler drops samples older than its horizon but keeps the amount held at its start.
  read_memory(series_, 1, kB, 0, 30, 1, [](double) { return kGiB; });
  series_.drop_before(at(20));
  EXPECT_DOUBLE_EQ(held_time(series_, kB, 1, between(20, 30)).seconds, 10.0);
}

}  // namespace gpumeter::held_time_test
