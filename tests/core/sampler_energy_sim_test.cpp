// SPDX-License-Identifier: MIT
// Truth tests of the driver's device samples through the sampler, the real loader and the
// simulated libnvidia-ml.so.1: energy over short windows shaped by the power samples, within
// 3 % of the scenario's exact integral of power, answered as soon as complete_after says; the
// constant-power fallback on a board without power samples; and the sample period learned
// while no process is busy.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <span>
#include <vector>

#include "core/sampler.h"
#include "support/sampler_sim.h"

namespace gpumeter::sampler_energy_sim_test {

using testing::SimulatedMachine;

// A worker at 100 % SM from the end of the driver's 61st sample period (the simulated driver's
// period is 166,667 µs) to the end of its 73rd: both steps lie on the driver's grid, between
// the sampler's rounds at 1 s and at 100 ms alike. The board draws 50 W idle, 400 W at 100 %.
constexpr std::string_view kStep = R"({
  "devices": [{"name": "NVIDIA A100-SXM4-40GB", "memory_total_bytes": 42949672960,
               "power_limit_w": 400, "power_idle_w": 50}],
  "processes": [
    {"device": 0, "pid": 4242, "used_memory_bytes": 1073741824,
     "utilization": {"sm": {"steps": [[0, 0], [10.166687, 100], [12.166691, 0]]}},
     "host": {"user": "worker", "uid": 1000, "started_s": -10, "command": ["python3", "w.py"]}}
  ]
})";

// The same board without power samples (nor a power reading), its energy counter intact.
constexpr std::string_view kStepWithoutPowerSamples = R"({
  "devices": [{"name": "NVIDIA A100-SXM4-40GB", "memory_total_bytes": 42949672960,
               "power_limit_w": 400, "power_idle_w": 50, "unsupported": ["power"]}],
  "processes": [
    {"device": 0, "pid": 4242, "used_memory_bytes": 1073741824,
     "utilization": {"sm": {"steps": [[0, 0], [10.166687, 100], [12.166691, 0]]}},
     "host": {"user": "worker", "uid": 1000, "started_s": -10, "command": ["python3", "w.py"]}}
  ]
})";

constexpr double kUp = 10.166687;
constexpr double kDown = 12.166691;

// The scenario's exact energy over [a, b], J.
double truth(double a, double b) {
  const double busy = std::max(0.0, std::min(b, kDown) - std::max(a, kUp));
  return 50.0 * (b - a) + 350.0 * busy;
}

struct Task {
  double begin_s;
  double end_s;
};

// 0.3 s and 1 s tasks across the step up and the step down, their edges off the driver's grid
// and off the rounds; the 0.3 s ones begin between the two rounds around their step, where
// constant power between rounds is wrong at 100 ms too.
constexpr Task kTasks[] = {{10.15, 10.45}, {9.95, 10.95}, {12.15, 12.45}, {11.65, 12.65}};

class EnergyTruth : public SimulatedMachine {
 protected:
  // Rounds every `interval` from 0 on, with the drains between them (the simulated counter
  // follows the clock forwards only; drains do not read it), answering each task at the first round
  // that complete_after(its end) asks for, as a task daemon does.
  std::vector<EnergyUse> answer(std::span<const Task> tasks, std::chrono::milliseconds interval) {
    Sampler sampler(gpus(), host(), {.interval = interval});
    std::vector<std::optional<EnergyUse>> answers(tasks.size());
    for (std::int64_t k = 0; std::ranges::any_of(answers, [](const auto& a) { return !a; }); ++k) {
      const double t = static_cast<double>(k * interval.count()) / 1000.0;
      if (t > 30) break;
      at(t);
      EXPECT_TRUE(sampler.sample_once(time_us(t)).has_value());
      drain_between(sampler, time_us(t), time_us(t) + interval.count() * 1000);
      for (std::size_t i = 0; i < tasks.size(); ++i) {
        if (answers[i] || time_us(t) < sampler.complete_after(time_us(tasks[i].end_s))) continue;
        answers[i] =
            gpu_usage(sampler, key(sampler, 4242), tasks[i].begin_s, tasks[i].end_s).energy;
      }
    }
    std::vector<EnergyUse> out;
    for (const auto& a : answers) out.push_back(a.value_or(EnergyUse{}));
    return out;
  }
};

void expect_adds_up(const EnergyUse& use) {
  const double device = use.device_joules.value_or(-1);
  const double parts = use.processes_joules.value_or(0) + use.other_processes_joules.value_or(0) +
                       use.idle_joules.value_or(0);
  EXPECT_NEAR(parts, device, 0.01 * device);
}

void expect_truth(const std::vector<EnergyUse>& answers) {
  ASSERT_EQ(answers.size(), std::size(kTasks));
  for (std::size_t i = 0; i < answers.size(); ++i) {
    const Task& task = kTasks[i];
    const EnergyUse& use = answers[i];
    const double expected = truth(task.begin_s, task.end_s);
    EXPECT_NEAR(use.device_joules.value_or(0), expected, 0.03 * expected)
        << "[" << task.begin_s << ", " << task.end_s << "]";
    expect_adds_up(use);
  }
}

TEST_F(EnergyTruth, ShortTasksReadTheirEnergyAtOneSecond) {
  open(kStep);
  expect_truth(answer(kTasks, std::chrono::milliseconds(1000)));
}

TEST_F(EnergyTruth, ShortTasksReadTheirEnergyAtOneHundredMilliseconds) {
  open(kStep);
  expect_truth(answer(kTasks, std::chrono::milliseconds(100)));
}

TEST_F(EnergyTruth, TheWorkersShareIsItsBusyStretch) {
  open(kStep);
  const Task task{10.15, 10.45};
  const EnergyUse use = answer(std::span(&task, 1), std::chrono::milliseconds(1000)).front();
  const double busy = 400 * (10.45 - kUp);
  EXPECT_NEAR(use.processes_joules.value_or(0), busy, 0.03 * busy);
  EXPECT_NEAR(use.idle_joules.value_or(0), 50 * (kUp - 10.15), 0.1);
}

TEST_F(EnergyTruth, WithoutPowerSamplesPowerIsConstantBetweenReadings) {
  open(kStepWithoutPowerSamples);
  // Constant power over [10, 11] gives [10.15, 10.45] 0.3 of that second's energy, 10 % less
  // than the truth.
  const Task task{10.15, 10.45};
  const EnergyUse use = answer(std::span(&task, 1), std::chrono::milliseconds(1000)).front();
  const double linear = 0.3 * truth(10, 11);
  EXPECT_NEAR(use.device_joules.value_or(0), linear, 0.01 * linear);
  EXPECT_LT(use.device_joules.value_or(0), 0.95 * truth(10.15, 10.45));
  expect_adds_up(use);
}

// Every process idle: no per-process sample tells the period, the device samples do.
constexpr std::string_view kIdle = R"({
  "devices": [{"name": "NVIDIA A100-SXM4-40GB", "memory_total_bytes": 42949672960,
               "sample_period_ms": 250}],
  "processes": [{"device": 0, "pid": 4242, "utilization": {"sm": 0},
                 "host": {"user": "worker", "uid": 1000, "started_s": -10,
                          "command": ["python3", "w.py"]}}]
})";

TEST_F(SimulatedMachine, ThePeriodIsLearnedFromDeviceSamplesWhileProcessesIdle) {
  open(kIdle);
  Sampler sampler(gpus(), host(), {});
  run(sampler, 0, 3);
  sampler.inspect(
      [](const Series& series) { EXPECT_EQ(series.device(0)->sample_period_us(), 250'000); });
  // A 0.5 s task is no shorter than the period: not flagged for it (a 1 s default would).
  const GpuUsage task = gpu_usage(sampler, key(sampler, 4242), 1.2, 1.7);
  EXPECT_FALSE(task.confidence.shorter_than_sample_period);
  EXPECT_EQ(sampler.complete_after(time_us(3)), time_us(3.25));
}

}  // namespace gpumeter::sampler_energy_sim_test
