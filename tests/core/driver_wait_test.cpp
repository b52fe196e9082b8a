// SPDX-License-Identifier: MIT
// The wait for the driver, against a scripted opener and clock: tries at 1 s, then at delays
// that double up to the cap; one log line per change of state; a reading with no GPU while it
// waits and the source's own readings once it opens.
#include "core/driver_wait.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpumeter::driver_wait_test {

using std::chrono::seconds;
using Clock = std::chrono::steady_clock;

class OneGpu final : public GpuSource {
 public:
  std::string_view name() const noexcept override { return "scripted"; }
  std::expected<GpuReading, Error> read() override {
    GpuReading reading;
    reading.devices.emplace_back();
    return reading;
  }
  Maybe<std::map<std::uint32_t, std::uint64_t>> process_memory(
      Pid pid, std::span<const std::uint32_t> devices) override {
    std::map<std::uint32_t, std::uint64_t> held;
    for (const std::uint32_t device : devices) held[device] = pid * 1000ULL;
    return held;
  }
};

class DriverWaitTest : public ::testing::Test {
 protected:
  // Fails until `failures_left` reaches 0, with `error`.
  DriverWait::Open opener() {
    return [this]() -> std::expected<std::unique_ptr<GpuSource>, Error> {
      tries_.push_back(now_);
      if (failures_left_ > 0) {
        --failures_left_;
        return std::unexpected(Error{ErrorCode::driver_failed, error_});
      }
      return std::make_unique<OneGpu>();
    };
  }
  DriverWait make() {
    return DriverWait(
        "nvml", opener(), RetryDelays{seconds(1), seconds(8)},
        [this](const std::string& line) { log_.push_back(line); }, [this] { return now_; });
  }
  // Reads once a second for `count` seconds.
  void read_for(DriverWait& wait, int count) {
    for (int i = 0; i < count; ++i) {
      now_ += seconds(1);
      ASSERT_TRUE(wait.read().has_value());
    }
  }

  Clock::time_point start_{};
  Clock::time_point now_{};
  int failures_left_ = 0;
  std::string error_ = "nvmlInit_v2 failed: Driver Not Loaded";
  std::vector<Clock::time_point> tries_;
  std::vector<std::string> log_;
};

TEST_F(DriverWaitTest, ADriverThereAtStartIsReadAtOnceAndSaysNothing) {
  DriverWait wait = make();
  EXPECT_EQ(tries_.size(), 1U);
  EXPECT_TRUE(log_.empty());
  EXPECT_EQ(wait.read()->devices.size(), 1U);
  EXPECT_TRUE(wait.status().up);
  EXPECT_EQ(wait.status().failed_opens, 0U);
  EXPECT_EQ(wait.name(), "scripted");
}

TEST_F(DriverWaitTest, ProcessMemoryIsTheSourcesOnceTheDriverOpened) {
  failures_left_ = 1;
  DriverWait wait = make();
  const std::vector<std::uint32_t> first{0};
  EXPECT_EQ(wait.process_memory(7, first), std::unexpected(Unavailable::not_supported));
  read_for(wait, 1);
  ASSERT_TRUE(wait.status().up);
  const auto held = wait.process_memory(7, first);
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(held->at(0), 7000U);
}

TEST_F(DriverWaitTest, TriesAgainAtDoublingDelaysUpToTheCap) {
  failures_left_ = 1'000;
  DriverWait wait = make();
  read_for(wait, 40);
  // At 0, then 1, 3, 7, 15 (delays 1, 2, 4, 8) and every 8 s from there: 23, 31, 39.
  std::vector<long> at;
  for (const auto& t : tries_)
    at.push_back(std::chrono::duration_cast<seconds>(t - start_).count());
  EXPECT_EQ(at, (std::vector<long>{0, 1, 3, 7, 15, 23, 31, 39}));
  const DriverStatus status = wait.status();
  EXPECT_FALSE(status.up);
  EXPECT_EQ(status.failed_opens, 8U);
  EXPECT_EQ(status.last_error, error_);
  EXPECT_TRUE(wait.read()->devices.empty());
  EXPECT_EQ(wait.name(), "nvml");
  EXPECT_FALSE(wait.drain_process_utilization(0, std::nullopt).has_value());
  // One line for the whole wait: the error never changed.
  ASSERT_EQ(log_.size(), 1U);
  EXPECT_NE(log_[0].find("waiting for the NVIDIA driver (" + error_ + ")"), std::string::npos)
      << log_[0];
}

TEST_F(DriverWaitTest, PicksTheGpusUpWhenTheDriverArrivesAndSaysSo) {
  failures_left_ = 3;
  DriverWait wait = make();
  read_for(wait, 2);
  error_ = "libnvidia-ml.so.1: cannot open shared object file";
  read_for(wait, 10);
  EXPECT_EQ(tries_.size(), 4U);
  EXPECT_TRUE(wait.status().up);
  EXPECT_EQ(wait.status().failed_opens, 3U);
  EXPECT_EQ(wait.read()->devices.size(), 1U);
  // The wait, the changed error, the arrival.
  ASSERT_EQ(log_.size(), 3U) << log_.back();
  EXPECT_NE(log_[1].find(error_), std::string::npos);
  EXPECT_EQ(log_[2], "the NVIDIA driver answers after 3 failed tries; reading the GPUs");
}

}  // namespace gpumeter::driver_wait_test
