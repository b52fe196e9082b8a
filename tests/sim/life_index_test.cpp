// SPDX-License-Identifier: MIT
// The life index against the walk it replaces: for random lives (short, long, endless, before
// the epoch) and random windows, the same processes in the same order as checking every one.
#include "sim/life_index.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace gpumeter::sim::life_index_test {

std::vector<const ProcessSpec*> walk(const std::vector<ProcessSpec>& all, double a, double b) {
  std::vector<const ProcessSpec*> out;
  for (const ProcessSpec& p : all) {
    const bool overlaps = a == b ? p.alive(a) : p.start_s < b && a < p.end_s;
    if (overlaps) out.push_back(&p);
  }
  return out;
}

std::vector<ProcessSpec> random_lives(std::mt19937& random, int count) {
  std::uniform_real_distribution<double> start(-2000, 2000);
  std::exponential_distribution<double> length(1.0 / 60);
  std::vector<ProcessSpec> all(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < all.size(); ++i) {
    all[i].start_s = std::round(start(random));  // whole seconds: edges meet windows exactly
    if (i % 10 == 0) continue;                   // endless
    all[i].end_s = all[i].start_s + (i % 7 == 0 ? 3000 : std::ceil(length(random)));
  }
  return all;
}

TEST(LifeIndex, FindsWhatTheWalkFinds) {
  std::mt19937 random(7);
  const std::vector<ProcessSpec> all = random_lives(random, 3000);
  std::vector<const ProcessSpec*> pointers;
  for (const ProcessSpec& p : all) pointers.push_back(&p);
  const LifeIndex index(pointers);
  std::uniform_real_distribution<double> when(-2500, 6000);
  std::exponential_distribution<double> width(1.0 / 20);
  for (int i = 0; i < 2000; ++i) {
    const double a = std::round(when(random) * 4) / 4;
    const double b = i % 3 == 0 ? a : a + std::ceil(width(random) * 4) / 4;
    ASSERT_EQ(index.overlapping(a, b), walk(all, a, b)) << "window [" << a << ", " << b << ")";
  }
  // A window wider than every bucket, and one unbounded below.
  EXPECT_EQ(index.overlapping(-1e9, 1e9), walk(all, -1e9, 1e9));
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(index.overlapping(-inf, 0), walk(all, -inf, 0));
}

TEST(LifeIndex, NextStartIsTheFirstStartAfter) {
  std::vector<ProcessSpec> all(3);
  all[0].start_s = 5;
  all[1].start_s = -3;
  all[2].start_s = 5;
  const LifeIndex index({&all[0], &all[1], &all[2]});
  EXPECT_EQ(index.next_start(-10), -3);
  EXPECT_EQ(index.next_start(-3), 5);  // strictly after
  EXPECT_EQ(index.next_start(4.5), 5);
  EXPECT_EQ(index.next_start(5), std::numeric_limits<double>::infinity());
}

}  // namespace gpumeter::sim::life_index_test
