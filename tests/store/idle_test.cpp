// SPDX-License-Identifier: MIT
// Idle holders: spells of minutes in which a process held GPU memory with (almost) no SM use.
#include "store/idle.h"

#include <gtest/gtest.h>

#include "store/write.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::idle_test {

using gpumeter::testing::TempDir;
using testing::kHour;
using testing::kMinute;
using testing::kT0;

constexpr std::uint64_t kGiB = 1ULL << 30;

// One interval per minute over [from, to) at `sm_percent`.
void hold(Batch& batch, const ProcessIdentity& who, TimeUs from, TimeUs to, double sm_percent,
          std::uint64_t memory = kGiB) {
  for (TimeUs t = from; t < to; t += kMinute)
    batch.process_intervals.push_back(testing::interval(who, t, t + kMinute, sm_percent, memory));
}

class Idle : public ::testing::Test {
 protected:
  void SetUp() override {
    Batch batch;
    // A notebook: busy for an hour, then idle for six with 12 GiB held, then busy again.
    const ProcessIdentity notebook = testing::process(11, "cy", "GPU-0");
    hold(batch, notebook, kT0, kT0 + kHour, 60, 12 * kGiB);
    hold(batch, notebook, kT0 + kHour, kT0 + 7 * kHour, 0.5, 12 * kGiB);
    hold(batch, notebook, kT0 + 7 * kHour, kT0 + 8 * kHour, 40, 12 * kGiB);
    // A worker idle for 2 h, one busy minute, idle for 2 h more.
    const ProcessIdentity worker = testing::process(22, "bob", "GPU-1", 1);
    hold(batch, worker, kT0, kT0 + 2 * kHour, 0);
    hold(batch, worker, kT0 + 2 * kHour, kT0 + 2 * kHour + kMinute, 30);
    hold(batch, worker, kT0 + 2 * kHour + kMinute, kT0 + 4 * kHour + kMinute, 0);
    // Steady training at 95 %, and a short idle pause of 30 minutes.
    const ProcessIdentity trainer = testing::process(33, "ada", "GPU-2", 2);
    hold(batch, trainer, kT0, kT0 + 8 * kHour, 95);
    const ProcessIdentity pause = testing::process(44, "ada", "GPU-3", 3);
    hold(batch, pause, kT0, kT0 + 30 * kMinute, 0);
    ASSERT_TRUE(write(store_, batch));
  }

  std::vector<IdleSpell> idle(IdleQuery query) {
    auto spells = idle_holders(store_, query);
    EXPECT_TRUE(spells) << spells.error().message;
    return spells ? *spells : std::vector<IdleSpell>{};
  }

  TempDir dir_;
  Store store_ = testing::open_store(dir_ / "idle.db");
};

TEST_F(Idle, LongSpellsOfHeldMemoryWithoutSmUseAreFoundLongestFirst) {
  const auto spells = idle({.since_us = kT0, .until_us = kT0 + 8 * kHour});
  ASSERT_EQ(spells.size(), 3U);
  EXPECT_EQ(spells[0].process.process.user, "cy");
  EXPECT_EQ(spells[0].process.process.gpu_uuid, "GPU-0");
  EXPECT_EQ(spells[0].begin_us, kT0 + kHour);
  EXPECT_EQ(spells[0].end_us, kT0 + 7 * kHour);
  EXPECT_DOUBLE_EQ(spells[0].held_seconds, 6 * 3600.0);
  EXPECT_NEAR(spells[0].sm_busy_seconds, 6 * 3600 * 0.005, 1e-6);
  EXPECT_EQ(spells[0].peak_memory_bytes, 12 * kGiB);
  // The busy minute splits the worker's idleness in two spells of two hours.
  EXPECT_EQ(spells[1].process.process.pid, 22U);
  EXPECT_EQ(spells[2].process.process.pid, 22U);
  EXPECT_EQ(spells[1].end_us - spells[1].begin_us, 2 * kHour);
  EXPECT_EQ(spells[2].end_us - spells[2].begin_us, 2 * kHour);
  EXPECT_EQ(spells[1].begin_us, kT0);
  EXPECT_EQ(spells[2].begin_us, kT0 + 2 * kHour + kMinute);
}

TEST_F(Idle, TheThresholdsChooseWhatCounts) {
  // A stricter threshold: the notebook's 0.5 % is no longer idle.
  auto spells = idle({.since_us = kT0, .until_us = kT0 + 8 * kHour, .max_sm_percent = 0.1});
  ASSERT_EQ(spells.size(), 2U);
  EXPECT_EQ(spells[0].process.process.pid, 22U);
  // A shorter minimum duration: the 30-minute pause appears too.
  spells = idle({.since_us = kT0, .until_us = kT0 + 8 * kHour, .min_duration_us = 20 * kMinute});
  ASSERT_EQ(spells.size(), 4U);
  EXPECT_EQ(spells[3].process.process.pid, 44U);
  EXPECT_EQ(spells[3].end_us - spells[3].begin_us, 30 * kMinute);
}

TEST_F(Idle, TheWindowAndTheUserNarrowTheSearch) {
  // The notebook is idle all through the window; the worker only until 4:01, 59 minutes.
  auto spells = idle({.since_us = kT0 + 3 * kHour + 2 * kMinute, .until_us = kT0 + 5 * kHour});
  ASSERT_EQ(spells.size(), 1U);
  EXPECT_EQ(spells[0].process.process.pid, 11U);
  EXPECT_EQ(spells[0].begin_us, kT0 + 3 * kHour + 2 * kMinute);
  EXPECT_EQ(spells[0].end_us, kT0 + 5 * kHour);
  spells = idle({.since_us = kT0, .until_us = kT0 + 8 * kHour, .user = "bob"});
  ASSERT_EQ(spells.size(), 2U);
}

TEST_F(Idle, ANegativeThresholdIsRefused) {
  const auto spells =
      idle_holders(store_, {.since_us = kT0, .until_us = kT0 + kHour, .max_sm_percent = -1});
  ASSERT_FALSE(spells);
  EXPECT_EQ(spells.error().code, ErrorCode::invalid_input);
}

}  // namespace gpumeter::store::idle_test
