// SPDX-License-Identifier: MIT
// The energy counter between two readings, shaped by the driver's power samples: exact where
// the samples cover the stretch between the readings, linear where they leave a hole, equal
// to the counter at every reading, and the split still adds up to the device's energy.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/attribution.h"
#include "core/series.h"

namespace gpumeter::energy_curve_test {

constexpr TimeUs kT0 = 1'700'000'000'000'000;
constexpr TimeUs kPeriod = 250'000;
const ProcessKey kA{.pid = 100, .start_time_us = kT0 - 100'000'000};

TimeUs at(double seconds) {
  return kT0 + static_cast<TimeUs>(std::llround(seconds * 1e6));
}

// The board draws 100 W before 10.5 s and 300 W from then on (a kernel starts).
double watts(double s) {
  return s < 10.5 ? 100.0 : 300.0;
}
double joules_until(double s) {
  return 1000.0 + 100.0 * std::min(s, 10.5) + 300.0 * std::max(s - 10.5, 0.0);
}

// A series of GPU 0 with counter readings every second over [0, seconds], kA on the GPU.
Series readings(int seconds) {
  Series series;
  series.add_process_memory_sample(0, kA, {.time_us = at(0), .used_bytes = 1 << 20});
  for (int s = 0; s <= seconds; ++s) {
    series.add_device_sample(0, {.time_us = at(s), .energy_joules = joules_until(s)});
  }
  return series;
}

// Readings over [0, 20], and a power sample every 250 ms, except the ones listed in `missing`
// (their end times in seconds).
Series board(const std::vector<double>& missing = {}) {
  Series series = readings(20);
  std::vector<PowerSample> power;
  for (TimeUs t = at(0.25); t <= at(20); t += kPeriod) {
    const double end = static_cast<double>(t - kT0) / 1e6;
    if (std::ranges::find(missing, end) != missing.end()) continue;
    power.push_back({t, watts(end - 0.125)});
  }
  series.add_power_samples(0, power);
  return series;
}

EnergyUse energy(const Series& series, double from, double to) {
  const std::vector<ProcessKey> keys{kA};
  const auto used = usage(series, keys, {.begin_us = at(from), .end_us = at(to)});
  EXPECT_TRUE(used.has_value());
  EXPECT_EQ(used->gpus.size(), 1U);
  return used->gpus.empty() ? EnergyUse{} : used->gpus.front().energy;
}

TEST(EnergyCurve, PowerSamplesShapeTheCounterBetweenReadings) {
  const Series series = board();
  // [10.3, 10.8]: 0.2 s at 100 W, 0.3 s at 300 W; constant power would say 0.5 × 200 W.
  EXPECT_NEAR(energy(series, 10.3, 10.8).device_joules.value(), 110.0, 1e-6);
  EXPECT_NEAR(energy(series, 9.9, 10.4).device_joules.value(), 50.0, 1e-6);
  EXPECT_NEAR(energy(series, 10.6, 11.4).device_joules.value(), 240.0, 1e-6);
}

TEST(EnergyCurve, TheCounterIsKeptAtEveryReading) {
  const Series series = board();
  EXPECT_NEAR(energy(series, 10, 11).device_joules.value(), 200.0, 1e-9);
  EXPECT_NEAR(energy(series, 9, 12).device_joules.value(), 600.0, 1e-9);
}

TEST(EnergyCurve, OneMissedPowerSampleIsBridgedByTheNextOne) {
  // Drivers skip a sample now and then; the one at 11 s then stands for (10.5, 11] at 300 W.
  const Series series = board({10.75});
  EXPECT_NEAR(energy(series, 10.3, 10.8).device_joules.value(), 20.0 + 90.0, 1e-6);
}

TEST(EnergyCurve, AHoleInThePowerSamplesFallsBackToConstantPower) {
  const Series series = board({10.5, 10.75, 11.0});
  // (10, 11] is not covered (a gap of four periods): linear there, 200 J over the second.
  EXPECT_NEAR(energy(series, 10.3, 10.8).device_joules.value(), 100.0, 1e-6);
}

TEST(EnergyCurve, PowerSamplesNotYetReachingTheNextReadingFallBack) {
  Series series = readings(11);
  std::vector<PowerSample> power;
  for (TimeUs t = at(0.25); t <= at(10.75); t += kPeriod) {
    power.push_back({t, watts(static_cast<double>(t - kT0) / 1e6 - 0.125)});
  }
  series.add_power_samples(0, power);
  // (10, 11] is not covered up to 11 yet: linear, 200 J over the second.
  EXPECT_NEAR(energy(series, 10.3, 10.8).device_joules.value(), 100.0, 1e-6);
}

TEST(EnergyCurve, TheSplitAddsUpToTheShapedDeviceEnergy) {
  Series series = board();
  series.set_sample_period_us(0, kPeriod);
  std::vector<KeyedGpuSample> busy;
  for (TimeUs t = at(10.75); t <= at(12); t += kPeriod) {
    busy.push_back({kA, {.time_us = t, .sm = 100}});
  }
  series.add_process_gpu_samples(0, busy);
  const EnergyUse use = energy(series, 10.3, 10.8);
  EXPECT_NEAR(use.device_joules.value(), 110.0, 1e-6);
  EXPECT_NEAR(use.processes_joules.value(), 90.0, 1e-6);  // its stretch (10.5, 10.8]
  EXPECT_NEAR(use.idle_joules.value(), 20.0, 1e-6);
  EXPECT_NEAR(*use.processes_joules + *use.other_processes_joules + *use.idle_joules,
              *use.device_joules, 1e-9);
}

// A board whose power steps from `low` to `high` W at `step` s, with counter readings every
// second and power samples every 250 ms, each the mean over its period as drivers report it.
Series stepping_board(double step, double low, double high) {
  const auto joules = [&](double s) {
    return 1000.0 + low * std::min(s, step) + high * std::max(s - step, 0.0);
  };
  Series series;
  series.add_process_memory_sample(0, kA, {.time_us = at(0), .used_bytes = 1 << 20});
  for (int s = 0; s <= 20; ++s) {
    series.add_device_sample(0, {.time_us = at(s), .energy_joules = joules(s)});
  }
  std::vector<PowerSample> power;
  for (TimeUs t = at(0.25); t <= at(20); t += kPeriod) {
    const double end = static_cast<double>(t - kT0) / 1e6;
    power.push_back({t, (joules(end) - joules(end - 0.25)) / 0.25});
  }
  series.add_power_samples(0, power);
  return series;
}

TEST(EnergyCurve, AStepInsideAPowerPeriodIsPlacedWhereTheMeanPutsIt) {
  // 100 W up to 10.6 s, 300 W after: the sample of (10.5, 10.75] says 220 W. An even spread of
  // that period gives [10.6, 11] 108 J; the step it implies gives the truth, 120 J.
  const Series rising = stepping_board(10.6, 100.0, 300.0);
  EXPECT_NEAR(energy(rising, 10.6, 11.0).device_joules.value(), 120.0, 1e-6);
  EXPECT_NEAR(energy(rising, 10.3, 10.6).device_joules.value(), 30.0, 1e-6);
  EXPECT_NEAR(energy(rising, 10.55, 10.7).device_joules.value(), 5.0 + 30.0, 1e-6);
  // And down again: 300 W up to 10.7 s, 50 W after.
  const Series falling = stepping_board(10.7, 300.0, 50.0);
  EXPECT_NEAR(energy(falling, 10.2, 10.7).device_joules.value(), 150.0, 1e-6);
  EXPECT_NEAR(energy(falling, 10.7, 11.3).device_joules.value(), 30.0, 1e-6);
  // The counter is kept at every reading whatever the shape.
  EXPECT_NEAR(energy(rising, 10.0, 11.0).device_joules.value(), 60.0 + 120.0, 1e-9);
}

TEST(EnergyCurve, AStretchAboveOrBelowBothNeighboursIsTakenAsSteady) {
  // A burst within one period: its mean is not between its neighbours', so no step is implied
  // and the period's energy is spread evenly (the period's mean is all that is known).
  Series series = readings(20);
  std::vector<PowerSample> power;
  for (TimeUs t = at(0.25); t <= at(20); t += kPeriod) {
    power.push_back({t, t == at(10.75) ? 300.0 : 100.0});
  }
  series.add_power_samples(0, power);
  // The counter's second (10, 11] is 200 J (joules_until): shaped as 100, 100, 300, 100 W.
  EXPECT_NEAR(energy(series, 10.5, 10.625).device_joules.value(), 200.0 * 37.5 / 150.0, 1e-6);
}

TEST(EnergyCurve, PowerSamplesAreKeptForTheFineHorizonOnly) {
  Series series = board();
  const std::size_t held = series.device(0)->power().size();
  EXPECT_EQ(held, 80U);
  EXPECT_EQ(series.add_power_samples(0, std::vector<PowerSample>{{at(5), 1.0}}), 0U);  // older
  series.fold_before(at(10));
  EXPECT_EQ(series.device(0)->power().front().time_us, at(10));
  EXPECT_EQ(series.device(0)->power_period_us(), kPeriod);
  EXPECT_GT(series.allocated_bytes(), 0U);
}

}  // namespace gpumeter::energy_curve_test
