// SPDX-License-Identifier: MIT
// Truth tests: the sampler through the real loader against the simulated libnvidia-ml.so.1,
// whose clock each test steps (GPUMETER_SIM_NOW_US) and samples at the sampler's interval.
// Scenario profiles are piecewise constant, so the truth of every window is known exactly.
#include "support/sampler_sim.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "core/recent_use.h"
#include "core/sampler.h"

namespace gpumeter::sampler_sim_test {

using testing::SimulatedMachine;

// A worker that runs tasks at 80 % SM (30 % memory controller) in three windows of every 20 s
// and idles between them, and a second process that runs at 30 % SM in [4, 7) of every 20 s,
// overlapping the first task for a second.
constexpr std::string_view kTasks = R"({
  "devices": [{"name": "NVIDIA A100-SXM4-40GB", "memory_total_bytes": 42949672960,
               "power_limit_w": 400, "power_idle_w": 50}],
  "processes": [
    {"device": 0, "pid": 4242, "used_memory_bytes": 4294967296,
     "utilization": {
       "sm": {"steps": [[0, 0], [2, 80], [5, 0], [9, 80], [10.5, 0], [14, 80], [15.2, 0]],
              "repeat_s": 20},
       "mem": {"steps": [[0, 0], [2, 30], [5, 0], [9, 30], [10.5, 0], [14, 30], [15.2, 0]],
               "repeat_s": 20}},
     "host": {"user": "worker", "uid": 1000, "started_s": -10, "command": ["python3", "worker.py"]}},
    {"device": 0, "pid": 5151, "used_memory_bytes": 1073741824,
     "utilization": {"sm": {"steps": [[0, 0], [4, 30], [7, 0]], "repeat_s": 20}},
     "host": {"user": "other", "uid": 1001, "started_s": -10, "command": ["python3", "other.py"]}}
  ]
})";

constexpr double kIdleWatts = 50;
constexpr double kBusyWatts = 400;

double watts(double sm_percent) {
  return kIdleWatts + (kBusyWatts - kIdleWatts) * std::min(sm_percent, 100.0) / 100.0;
}

struct TaskWindow {
  double begin_s;
  double end_s;
};

std::vector<TaskWindow> task_windows(int cycles) {
  std::vector<TaskWindow> windows;
  for (int c = 0; c < cycles; ++c) {
    const double base = 20.0 * c;
    for (const TaskWindow w : {TaskWindow{2, 5}, TaskWindow{9, 10.5}, TaskWindow{14, 15.2}}) {
      windows.push_back({base + w.begin_s, base + w.end_s});
    }
  }
  return windows;
}

// Device figures, set figures and the rest of the split add up to the device's rise.
void expect_energy_adds_up(const EnergyUse& energy) {
  ASSERT_TRUE(energy.device_joules.has_value());
  ASSERT_TRUE(energy.processes_joules && energy.other_processes_joules && energy.idle_joules);
  const double parts =
      *energy.processes_joules + *energy.other_processes_joules + *energy.idle_joules;
  EXPECT_NEAR(parts, *energy.device_joules, 0.01 * *energy.device_joules);
}

TEST_F(SimulatedMachine, EachTaskWindowReadsItsScriptedUse) {
  open(kTasks);
  Sampler sampler(gpus(), host(), {});
  run(sampler, 0, 62);
  const ProcessKey worker = key(sampler, 4242);
  EXPECT_EQ(worker.start_time_us, time_us(-10));
  for (const TaskWindow& task : task_windows(3)) {
    SCOPED_TRACE(::testing::Message() << "task [" << task.begin_s << ", " << task.end_s << "]");
    const GpuUsage gpu = gpu_usage(sampler, worker, task.begin_s, task.end_s);
    EXPECT_NEAR(gpu[Engine::sm].average_percent.value_or(-100), 80, 3);
    EXPECT_NEAR(gpu[Engine::memory].average_percent.value_or(-100), 30, 3);
    EXPECT_DOUBLE_EQ(gpu.confidence.coverage, 1.0);
    EXPECT_EQ(gpu.memory.peak_bytes, 4294967296U);
    expect_energy_adds_up(gpu.energy);
  }
}

// With recent_figures, each published snapshot carries every process's engine use over the
// last 5 s from the series the round stored: at t = 15 the worker ran at 80 % SM and 30 %
// memory controller for 1.5 of those 5 s ([10, 10.5) and [14, 15)), the other not at all. Without
// it the figures stay absent (no_data), as in a one-shot reading.
TEST_F(SimulatedMachine, RecentFiguresComeWithEachSnapshotFromTheSeries) {
  open(kTasks);
  SamplerConfig config;
  config.recent_figures = true;
  Sampler sampler(gpus(), host(), config);
  Sampler plain(gpus(), host(), {});
  run(sampler, 0, 15);
  const auto snapshot = sampler.snapshot();
  ASSERT_TRUE(snapshot && snapshot->gpus.devices.size() == 1);
  const auto& processes = *snapshot->gpus.devices[0].processes;
  ASSERT_EQ(processes.size(), 2U);
  for (const GpuProcess& process : processes) {
    SCOPED_TRACE(::testing::Message() << "pid " << process.pid);
    ASSERT_TRUE(process.recent_use.has_value());
    EXPECT_EQ(process.recent_use->window_us, kRecentUseWindowUs);
    const bool worker = process.pid == 4242;
    EXPECT_NEAR(process.recent_use->sm_percent.value_or(-100), worker ? 24.0 : 0.0, 1.5);
    EXPECT_NEAR(process.recent_use->memory_percent.value_or(-100), worker ? 9.0 : 0.0, 1.0);
  }
  ASSERT_TRUE(plain.sample_once(time_us(15)).has_value());
  EXPECT_EQ(plain.snapshot()->gpus.devices[0].processes->front().recent_use,
            std::unexpected(Unavailable::no_data));
}

// Two samplers on the same machine, one folding everything older than 20 s into 1 s buckets:
// task windows that lie in the coarse tier read as they did in the fine one, at bucket
// resolution.
TEST_F(SimulatedMachine, TaskWindowsPastTheFineHorizonKeepTheirBusySeconds) {
  open(kTasks);
  SamplerConfig folding;
  folding.series.fine_horizon_us = 20'000'000;
  Sampler coarse(gpus(), host(), folding);
  Sampler fine(gpus(), host(), {});
  for (int t = 0; t <= 62; ++t) {
    at(t);
    ASSERT_TRUE(coarse.sample_once(time_us(t)).has_value());
    ASSERT_TRUE(fine.sample_once(time_us(t)).has_value());
    drain_between(coarse, time_us(t), time_us(t + 1));
    drain_between(fine, time_us(t), time_us(t + 1));
  }
  const ProcessKey worker = key(coarse, 4242);
  // Whole seconds around each task of the first two cycles, all older than 20 s.
  for (const TaskWindow& task : task_windows(2)) {
    const double begin = std::floor(task.begin_s);
    const double end = std::ceil(task.end_s);
    SCOPED_TRACE(::testing::Message() << "around [" << task.begin_s << ", " << task.end_s << "]");
    const GpuUsage folded = gpu_usage(coarse, worker, begin, end);
    const GpuUsage raw = gpu_usage(fine, worker, begin, end);
    EXPECT_EQ(folded.confidence.coarse_bucket_us, 1'000'000);
    EXPECT_EQ(raw.confidence.coarse_bucket_us, 0);
    EXPECT_FALSE(folded.confidence.low());
    // Half a percent of each of the window's buckets at most, and the scripted truth.
    const double raw_busy = raw[Engine::sm].busy_seconds.value_or(-1);
    EXPECT_NEAR(folded[Engine::sm].busy_seconds.value_or(-100), raw_busy,
                0.005 * (end - begin) + 1e-9);
    EXPECT_NEAR(raw_busy, 0.8 * (task.end_s - task.begin_s), 0.03 * raw_busy);
    EXPECT_GE(folded[Engine::sm].peak_percent.value_or(-1),
              raw[Engine::sm].peak_percent.value_or(0));
    EXPECT_EQ(folded.memory.peak_bytes, 4294967296U);
    expect_energy_adds_up(folded.energy);
  }
  // The whole-second task [2, 5] reads its average from the coarse tier alone.
  EXPECT_NEAR(gpu_usage(coarse, worker, 2, 5)[Engine::sm].average_percent.value_or(-100), 80, 3);
  EXPECT_LT(coarse.stats().series_bytes, fine.stats().series_bytes);
}

TEST_F(SimulatedMachine, EnergyMatchesTheScriptedPowerAndSplitsBySmShare) {
  open(kTasks);
  Sampler sampler(gpus(), host(), {});
  run(sampler, 0, 62);
  const ProcessKey worker = key(sampler, 4242);
  // One whole cycle: u = 80 in [2, 4), 100 (80 + 30, capped) in [4, 5), 30 in [5, 7),
  // 80 in [9, 10.5) and [14, 15.2), 0 elsewhere.
  const double cycle = 20 * watts(0) + 2 * (watts(80) - watts(0)) + (watts(100) - watts(0)) +
                       2 * (watts(30) - watts(0)) + 2.7 * (watts(80) - watts(0));
  for (const double begin : {0.0, 20.0, 40.0}) {
    const GpuUsage gpu = gpu_usage(sampler, worker, begin, begin + 20);
    EXPECT_NEAR(gpu.energy.device_joules.value_or(0), cycle, 0.01 * cycle);
    expect_energy_adds_up(gpu.energy);
  }
  // The first task, alone for two seconds, then sharing one with the other process 80:30.
  const double task = 2 * watts(80) + watts(100) * 80 / 110;
  const GpuUsage first = gpu_usage(sampler, worker, 22, 25);
  EXPECT_NEAR(first.energy.processes_joules.value_or(0), task, 0.01 * task);
  // Idle seconds in the window [5, 9]: [7, 9).
  const GpuUsage gap = gpu_usage(sampler, worker, 25, 29);
  EXPECT_NEAR(gap.energy.idle_joules.value_or(0), 2 * watts(0), 0.01 * 2 * watts(0));
}

TEST_F(SimulatedMachine, ABurstyWorkersLifetimeAverageIsLowWhileItsTasksReadRight) {
  open_example("bursty-worker");  // 95 % SM for the first 2 s of every 20 s
  Sampler sampler(gpus(), host(), {});
  run(sampler, 0, 202);
  const ProcessKey worker = key(sampler, 80123);
  const GpuUsage lifetime = gpu_usage(sampler, worker, 0, 200);
  EXPECT_NEAR(lifetime[Engine::sm].average_percent.value_or(-100), 9.5, 1);
  for (int k = 0; k < 10; ++k) {
    SCOPED_TRACE(::testing::Message() << "task " << k);
    const GpuUsage task = gpu_usage(sampler, worker, 20.0 * k, 20.0 * k + 2);
    EXPECT_NEAR(task[Engine::sm].average_percent.value_or(-100), 95, 3);
    EXPECT_FALSE(task.confidence.low());
  }
}

TEST_F(SimulatedMachine, ALostGpuStopsOnlyItsOwnSeries) {
  open_example("lost-gpu");  // GPU 1 falls off the bus at t = 2 s
  Sampler sampler(gpus(), host(), {});
  run(sampler, 0, 10);
  const auto snapshot = sampler.snapshot();
  ASSERT_NE(snapshot, nullptr);
  ASSERT_EQ(snapshot->gpus.devices.size(), 2U);
  EXPECT_FALSE(snapshot->gpus.devices[0].lost);
  EXPECT_TRUE(snapshot->gpus.devices[1].lost);
  EXPECT_EQ(sampler.stats().gpu_read.failures, 0U);

  // Up to 9 s: the driver period that ends just after the last round is not drained yet.
  const GpuUsage alive = gpu_usage(sampler, key(sampler, 61021), 3, 9);
  EXPECT_NEAR(alive[Engine::sm].average_percent.value_or(-100), 83, 1);
  EXPECT_DOUBLE_EQ(alive.confidence.coverage, 1.0);

  const ProcessKey stranded = key(sampler, 61044);
  const GpuUsage before = gpu_usage(sampler, stranded, 0, 0.8);
  EXPECT_NEAR(before[Engine::sm].average_percent.value_or(-100), 97, 1);
  const GpuUsage after = gpu_usage(sampler, stranded, 3, 10);
  EXPECT_EQ(after.confidence.coverage, 0.0);
  EXPECT_EQ(after[Engine::sm].average_percent, std::unexpected(Unavailable::no_data));
  EXPECT_EQ(after.memory.at_end_bytes, 0U);  // a lost GPU holds nobody's memory
}

// Pid 777 runs at 40 % SM in [0, 5), exits, and is reused by a process at 90 % from t = 10.
constexpr std::string_view kReuse = R"({
  "devices": [{"name": "NVIDIA L4", "memory_total_bytes": 24152899584}],
  "processes": [
    {"device": 0, "pid": 777, "used_memory_bytes": 1073741824, "utilization": {"sm": 40},
     "start_s": 0, "end_s": 5},
    {"device": 0, "pid": 777, "used_memory_bytes": 2147483648, "utilization": {"sm": 90},
     "start_s": 10}
  ]
})";

TEST_F(SimulatedMachine, AReusedPidIsANewProcess) {
  open(kReuse);
  // What the host would say: each process's own start time while it lives.
  use_host_script(777, {{0, 5}, {10, 1e9}});
  Sampler sampler(gpus(), host(), {});
  run(sampler, 0, 20);
  const ProcessKey first{777, time_us(0)};
  const ProcessKey second{777, time_us(10)};
  EXPECT_EQ(sampler.key_for(777), second);
  EXPECT_EQ(sampler.stats().pid_reuses, 1U);
  EXPECT_NEAR(gpu_usage(sampler, first, 0.5, 4.5)[Engine::sm].average_percent.value_or(-1), 40, 1);
  EXPECT_NEAR(gpu_usage(sampler, second, 11, 19)[Engine::sm].average_percent.value_or(-1), 90, 1);
  EXPECT_NEAR(gpu_usage(sampler, first, 11, 19)[Engine::sm].average_percent.value_or(-1), 0, 1e-9);
  EXPECT_EQ(gpu_usage(sampler, first, 11, 19).memory.at_end_bytes, 0U);
  EXPECT_EQ(gpu_usage(sampler, second, 11, 19).memory.at_end_bytes, 2147483648U);
}

TEST_F(SimulatedMachine, TheThreadSamplesTheSimulatorOnTheWallClock) {
  open_on_wall_clock(kTasks);
  Sampler sampler(gpus(), host(), {.interval = std::chrono::milliseconds(100)});
  sampler.start();
  std::vector<std::jthread> readers;
  readers.reserve(2);
  for (int i = 0; i < 2; ++i) {
    readers.emplace_back([&sampler] {
      const ProcessKey keys[] = {{4242, 0}, {5151, 0}};
      while (sampler.stats().rounds < 3) {
        if (auto snapshot = sampler.snapshot()) {
          EXPECT_EQ(snapshot->gpus.devices.size(), 1U);
          const Window window{snapshot->time_us - 1'000'000, snapshot->time_us};
          EXPECT_TRUE(sampler.usage(keys, window).has_value());
        }
        std::this_thread::yield();
      }
    });
  }
  for (std::jthread& reader : readers) reader.join();
  sampler.stop();
  EXPECT_EQ(sampler.stats().gpu_read.failures, 0U);
  EXPECT_EQ(sampler.stats().utilization_drain.failures, 0U);
}

}  // namespace gpumeter::sampler_sim_test
