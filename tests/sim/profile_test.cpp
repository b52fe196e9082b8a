// SPDX-License-Identifier: MIT
#include "sim/profile.h"

#include <gtest/gtest.h>

#include <limits>

namespace gpumeter::sim::profile_test {

constexpr double kNever = std::numeric_limits<double>::infinity();

TEST(Profile, ConstantIsTheSameEverywhere) {
  const Profile p = Profile::constant(42);
  EXPECT_EQ(p.at(-5), 42);
  EXPECT_EQ(p.at(1e6), 42);
  EXPECT_DOUBLE_EQ(p.integral(0, 10), 420);
  EXPECT_EQ(p.next_change(3), kNever);
  EXPECT_TRUE(Profile::constant(0).is_zero());
  EXPECT_FALSE(p.is_zero());
}

TEST(Profile, StepsHoldTheirValueUntilTheNextStep) {
  const Profile p = Profile::steps({{10, 20}, {30, 80}});
  EXPECT_EQ(p.at(0), 20);  // before the first step: the first value
  EXPECT_EQ(p.at(10), 20);
  EXPECT_EQ(p.at(29.9), 20);
  EXPECT_EQ(p.at(30), 80);
  EXPECT_EQ(p.next_change(15), 30);
  EXPECT_EQ(p.next_change(30), kNever);
  EXPECT_DOUBLE_EQ(p.integral(20, 40), 10 * 20 + 10 * 80);
  EXPECT_DOUBLE_EQ(p.mean(20, 40), 50);
  EXPECT_EQ(p.max_over(0, 29), 20);
  EXPECT_EQ(p.max_over(0, 31), 80);
}

TEST(Profile, RepeatingStepsCycle) {
  const Profile p = Profile::steps({{0, 10}, {5, 90}}, 10);
  EXPECT_EQ(p.at(3), 10);
  EXPECT_EQ(p.at(7), 90);
  EXPECT_EQ(p.at(13), 10);
  EXPECT_EQ(p.at(-2), 90);  // the cycle extends backwards too
  EXPECT_DOUBLE_EQ(p.next_change(7), 10);
  EXPECT_DOUBLE_EQ(p.integral(0, 100), 10 * (5 * 10 + 5 * 90));
  EXPECT_DOUBLE_EQ(p.integral(2.5, 12.5), 2.5 * 10 + 5 * 90 + 2.5 * 10);
}

TEST(Profile, BurstsAreOnForTheirDutyCycle) {
  const Profile p =
      Profile::bursts({.period_s = 20, .duty = 0.1, .value = 95, .offset_s = 0, .idle = 0});
  EXPECT_EQ(p.at(0), 95);
  EXPECT_EQ(p.at(1.9), 95);
  EXPECT_EQ(p.at(2), 0);
  EXPECT_EQ(p.at(21), 95);
  EXPECT_DOUBLE_EQ(p.next_change(1), 2);
  EXPECT_DOUBLE_EQ(p.next_change(2), 20);
  EXPECT_DOUBLE_EQ(p.mean(0, 200), 9.5);
  EXPECT_DOUBLE_EQ(p.integral(1, 3), 95);
  EXPECT_EQ(p.max_over(5, 15), 0);
  EXPECT_EQ(p.max_over(5, 25), 95);
}

TEST(Profile, BurstOffsetAndIdleValue) {
  const Profile p =
      Profile::bursts({.period_s = 10, .duty = 0.5, .value = 60, .offset_s = 3, .idle = 5});
  EXPECT_EQ(p.at(2), 5);
  EXPECT_EQ(p.at(3), 60);
  EXPECT_EQ(p.at(8), 5);
  EXPECT_DOUBLE_EQ(p.mean(3, 13), 32.5);
}

TEST(Profile, DegenerateBurstsAreConstants) {
  EXPECT_EQ(Profile::bursts({.period_s = 1, .duty = 0, .value = 50, .offset_s = 0, .idle = 7})
                .next_change(0),
            kNever);
  EXPECT_EQ(
      Profile::bursts({.period_s = 1, .duty = 1, .value = 50, .offset_s = 0, .idle = 7}).at(0.7),
      50);
}

TEST(Profile, TinyNegativeTimesDoNotStallAWalk) {
  // fmod(-3e-15, 60) + 60 rounds to 60: the next change must still be a whole step away.
  const Profile steps = Profile::steps({{0, 35}, {20, 58}, {40, 12}}, 60);
  EXPECT_GT(steps.next_change(-3.2196467602166484e-15), 19.9);
  const Profile bursts =
      Profile::bursts({.period_s = 60, .duty = 0.5, .value = 1, .offset_s = 0, .idle = 0});
  EXPECT_GT(bursts.next_change(-3.2196467602166484e-15), 29.9);
  EXPECT_NEAR(steps.integral(-0.166667, 0), 0.166667 * 12, 1e-9);
}

TEST(Profile, LongIntegralsOfPeriodicProfilesAreExact) {
  const Profile p =
      Profile::bursts({.period_s = 2, .duty = 0.25, .value = 80, .offset_s = 0, .idle = 0});
  EXPECT_NEAR(p.integral(0, 86400), 86400 * 20.0, 1e-6);
}

}  // namespace gpumeter::sim::profile_test
