// SPDX-License-Identifier: MIT
// The sampler's background thread with readers hammering it from other threads: meant to run
// under ThreadSanitizer (GPUMETER_TSAN). No timing is asserted; the waits below only bound
// how long a broken build may hang.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "core/sampler.h"
#include "support/sampler_fakes.h"

namespace gpumeter::sampler_thread_test {

using testing::on_gpu;
using testing::ScriptedHost;

TimeUs wall_now_us() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

// Two GPUs whose processes are busy whenever asked: each drain reports one sample per process
// at the time of the call.
class BusyGpus final : public GpuSource {
 public:
  std::string_view name() const noexcept override { return "busy"; }
  std::expected<GpuReading, Error> read() override {
    GpuReading reading;
    for (std::uint32_t i = 0; i < 2; ++i) {
      Device device;
      device.identity.index = i;
      device.processes = std::vector<GpuProcess>{on_gpu(100 + i, 1 << 20), on_gpu(200, 1 << 21)};
      device.state[DeviceMetric::energy] = static_cast<double>(++reads_);
      reading.devices.push_back(std::move(device));
    }
    return reading;
  }
  Maybe<std::vector<PidGpuSample>> drain_process_utilization(
      std::uint32_t index, std::optional<TimeUs> /*last_seen_us*/) override {
    const TimeUs now = wall_now_us();
    return std::vector{testing::busy(100 + index, now, 70), testing::busy(200, now, 20)};
  }

 private:
  int reads_ = 0;
};

class SamplerThreadTest : public ::testing::Test {
 protected:
  SamplerThreadTest() {
    for (Pid pid : {100U, 101U, 200U, 300U})
      host_.processes[pid] = {1000 + pid, {.cpu_user_us = 1}};
  }

  BusyGpus gpus_;
  ScriptedHost host_;
};

// Readers that use every reading entry point until the sampler has run `rounds` rounds.
void read_until(const Sampler& sampler, std::uint64_t rounds, std::atomic<int>& reads) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  const std::vector<ProcessKey> keys{{100, 1100}, {200, 1200}};
  while (sampler.stats().rounds < rounds && std::chrono::steady_clock::now() < give_up) {
    if (auto snapshot = sampler.snapshot()) {
      EXPECT_EQ(snapshot->gpus.devices.size(), 2U);
    }
    const TimeUs now = wall_now_us();
    auto used = sampler.usage(keys, Window{now - 10'000'000, now});
    EXPECT_TRUE(used.has_value());
    EXPECT_TRUE(sampler.key_for(100).has_value());
    sampler.inspect([](const Series& series) { static_cast<void>(series.allocated_bytes()); });
    ++reads;
    std::this_thread::yield();
  }
}

TEST_F(SamplerThreadTest, ConcurrentReadersWhileTheThreadSamples) {
  Sampler sampler(gpus_, host_, SamplerConfig{.interval = std::chrono::milliseconds(100)});
  sampler.start();
  sampler.start();  // idempotent
  std::atomic<int> reads{0};
  std::vector<std::jthread> readers;
  readers.reserve(4);
  for (int i = 0; i < 4; ++i) {
    readers.emplace_back([&] { read_until(sampler, 5, reads); });
  }
  std::jthread watcher([&] {
    for (int i = 0; i < 200; ++i) {
      sampler.watch({300, 1300});
      sampler.unwatch({300, 1300});
    }
  });
  for (std::jthread& reader : readers) reader.join();
  watcher.join();
  sampler.stop();
  sampler.stop();  // idempotent
  const SamplerStats stats = sampler.stats();
  ASSERT_GE(stats.rounds, 5U);
  EXPECT_EQ(stats.gpu_read.failures, 0U);
  EXPECT_GT(reads.load(), 0);
  const std::vector<ProcessKey> keys{{100, 1100}};
  const TimeUs last = stats.last_round_us.value_or(0);
  auto used = sampler.usage(keys, Window{last - 300'000, last});
  ASSERT_TRUE(used.has_value());
  EXPECT_FALSE(used->gpus.empty());
}

TEST_F(SamplerThreadTest, WaitForRoundWakesWhenTheThreadGetsThere) {
  Sampler sampler(gpus_, host_, SamplerConfig{.interval = std::chrono::milliseconds(100)});
  const TimeUs target = wall_now_us() + 250'000;
  sampler.start();
  EXPECT_TRUE(sampler.wait_for_round(target, std::chrono::seconds(60)));
  EXPECT_GE(sampler.stats().last_round_us.value_or(0), target);
}

TEST_F(SamplerThreadTest, StartsAgainAfterStopAndTheDestructorStops) {
  auto sampler = std::make_unique<Sampler>(gpus_, host_, SamplerConfig{});
  sampler->start();
  ASSERT_TRUE(sampler->wait_for_round(wall_now_us(), std::chrono::seconds(60)));
  sampler->stop();
  const std::uint64_t after_first = sampler->stats().rounds;
  sampler->start();
  ASSERT_TRUE(sampler->wait_for_round(wall_now_us(), std::chrono::seconds(60)));
  EXPECT_GT(sampler->stats().rounds, after_first);
  sampler.reset();  // joins the running thread
}

}  // namespace gpumeter::sampler_thread_test
