// SPDX-License-Identifier: MIT
// Each process's recent engine use from one drain of a GPU's per-process samples, and its
// recent CPU use and resident memory from its host series.
#include "core/recent_use.h"

#include <gtest/gtest.h>

#include <vector>

namespace gpumeter::recent_use_test {

constexpr TimeUs kNow = 1'700'000'000'000'000;
constexpr TimeUs kPeriod = 500'000;

PidGpuSample sample(Pid pid, TimeUs ago_us, std::uint32_t sm, std::uint32_t enc = 0) {
  return PidGpuSample{
      pid,
      ProcessGpuSample{.time_us = kNow - ago_us, .sm = sm, .mem = sm / 2, .enc = enc, .dec = 0}};
}

Device with_processes(std::initializer_list<Pid> pids) {
  Device device;
  device.processes = std::vector<GpuProcess>{};
  for (const Pid pid : pids) device.processes->push_back(GpuProcess{.pid = pid});
  return device;
}

// Pid 1 busy at 80 % in every period of the 5 s window; pid 2 at 100 % in two periods only
// (the driver reports busy processes only); pid 3 listed without samples: idle.
TEST(RecentUse, EachSampleStandsForOneDriverPeriod) {
  std::vector<PidGpuSample> drained;
  for (TimeUs ago = 0; ago < 5'000'000; ago += kPeriod) drained.push_back(sample(1, ago, 80, 20));
  drained.push_back(sample(2, 0, 100));
  drained.push_back(sample(2, kPeriod, 100));
  drained.push_back(sample(1, 9'000'000, 100));  // before the window: not counted
  Device device = with_processes({1, 2, 3});
  attach_recent_use(device, drained, kNow);
  const auto& processes = *device.processes;
  ASSERT_TRUE(processes[0].recent_use.has_value());
  EXPECT_DOUBLE_EQ(*processes[0].recent_use->sm_percent, 80.0);
  EXPECT_DOUBLE_EQ(*processes[0].recent_use->memory_percent, 40.0);
  EXPECT_DOUBLE_EQ(*processes[0].recent_use->encoder_percent, 20.0);
  EXPECT_EQ(processes[0].recent_use->window_us, kRecentUseWindowUs);
  EXPECT_DOUBLE_EQ(*processes[1].recent_use->sm_percent, 20.0);  // 2 of 10 periods
  EXPECT_DOUBLE_EQ(*processes[2].recent_use->sm_percent, 0.0);
}

// Drivers have reported junk above 100 for zombies: a sample counts at most a full period, and
// no share passes 100.
TEST(RecentUse, JunkAbove100IsClamped) {
  const std::vector<ProcessGpuSample> samples{{.time_us = kNow, .sm = 4000}};
  const RecentEngineUse use = recent_use_of(samples, kRecentUseWindowUs, kNow);
  EXPECT_DOUBLE_EQ(*use.sm_percent, 100.0);
}

// A failed drain gives every process, also in its MIG instance, the drain's reason.
TEST(RecentUse, AFailedDrainIsEveryProcessesReason) {
  Device device = with_processes({7});
  device.mig = MigState{.enabled = true, .devices = {MigDevice{}}};
  device.mig->devices[0].processes = std::vector<GpuProcess>{GpuProcess{.pid = 7}};
  attach_recent_use(device, std::unexpected(Unavailable::mig), kNow);
  EXPECT_EQ(device.processes->front().recent_use, std::unexpected(Unavailable::mig));
  EXPECT_EQ(device.mig->devices[0].processes->front().recent_use,
            std::unexpected(Unavailable::mig));
}

// CPU use over the last 5 s of a process's host series (100 % is one core) and its resident
// memory at the last reading; a series that does not reach back 5 s gives no CPU figure yet.
TEST(RecentUse, HostFiguresFromTheSeries) {
  const HostTiers tiers{.fine_horizon_us = 600'000'000, .bucket_us = 10'000'000};
  HostSeries series(64, 64);
  HostProcess process;
  // Half a core for 10 s: 0.5 s of CPU time a second, resident memory growing 1 MiB a second.
  for (TimeUs s = 0; s <= 10; ++s) {
    series.add(HostSample{.time_us = kNow + s * 1'000'000,
                          .cpu_user_us = s * 400'000,
                          .cpu_system_us = s * 100'000,
                          .rss_bytes = static_cast<std::uint64_t>(100 + s) << 20,
                          .peak_rss_bytes = static_cast<std::uint64_t>(110) << 20},
               tiers);
  }
  attach_recent_host_use(process, series);
  EXPECT_DOUBLE_EQ(process.cpu_percent.value_or(-1), 50.0);
  EXPECT_EQ(process.rss_bytes.value_or(0), std::uint64_t{110} << 20);

  HostSeries young(64, 64);
  young.add(HostSample{.time_us = kNow, .rss_bytes = std::uint64_t{1} << 20}, tiers);
  young.add(HostSample{.time_us = kNow + 2'000'000,
                       .cpu_user_us = 2'000'000,
                       .rss_bytes = std::uint64_t{1} << 20},
            tiers);
  HostProcess started;
  attach_recent_host_use(started, young);
  EXPECT_EQ(started.cpu_percent, std::unexpected(Unavailable::no_data));
  EXPECT_EQ(started.rss_bytes.value_or(0), std::uint64_t{1} << 20);
}

}  // namespace gpumeter::recent_use_test
