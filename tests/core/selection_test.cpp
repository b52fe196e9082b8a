// SPDX-License-Identifier: MIT
#include "core/selection.h"

#include <gtest/gtest.h>

namespace gpumeter::selection_test {

using enum DeviceMetric;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

Device gpu(std::uint32_t index, double used_gib, double util_percent) {
  Device device;
  device.identity.index = index;
  device.state[memory_total] = 16.0 * kGiB;
  device.state[memory_used] = used_gib * kGiB;
  device.state[utilization_gpu] = util_percent;
  device.state[power_draw] = 50.0 + index;
  return device;
}

std::vector<std::size_t> eligible(const std::vector<Device>& devices,
                                  const SelectionCriteria& criteria = {}) {
  return select_gpus(GpuReading{.devices = devices}, criteria).eligible;
}

TEST(Selection, IdleGpusAreEligibleInIndexOrder) {
  EXPECT_EQ(eligible({gpu(0, 0, 0), gpu(1, 15, 100), gpu(2, 0.1, 3)}),
            (std::vector<std::size_t>{0, 2}));
}

TEST(Selection, ADisplayServersFewMegabytesDoNotMakeAGpuBusy) {
  EXPECT_EQ(eligible({gpu(0, 0.05, 1)}).size(), 1U);
}

TEST(Selection, ThresholdsAreInclusive) {
  // 3.2 GiB of 16 GiB is exactly 20 %.
  EXPECT_EQ(eligible({gpu(0, 3.2, 20)}).size(), 1U);
  EXPECT_TRUE(eligible({gpu(0, 3.3, 0)}).empty());
  EXPECT_TRUE(eligible({gpu(0, 0, 21)}).empty());
}

TEST(Selection, ThresholdsCanBeRaised) {
  const SelectionCriteria everything{.max_memory_percent = 100, .max_utilization_percent = 100};
  EXPECT_EQ(eligible({gpu(0, 16, 100)}, everything).size(), 1U);
}

TEST(Selection, ReportsWhyEachGpuWasLeftOut) {
  std::vector<Device> devices{gpu(0, 0, 0), gpu(1, 8, 0), gpu(2, 0, 90),
                              gpu(3, 0, 0), gpu(4, 0, 0), gpu(5, 0, 0)};
  devices[3].lost = true;
  devices[4].state.compute_mode = ComputeMode::prohibited;
  devices[5].state[memory_total] = std::unexpected(Unavailable::gpu_lost);
  const Selection selection = select_gpus(GpuReading{.devices = devices}, {});
  EXPECT_EQ(selection.eligible, (std::vector<std::size_t>{0}));
  ASSERT_EQ(selection.excluded.size(), 5U);
  EXPECT_EQ(selection.excluded[0].device, 1U);
  EXPECT_EQ(selection.excluded[0].reason, Exclusion::memory_busy);
  EXPECT_EQ(selection.excluded[1].reason, Exclusion::utilization_busy);
  EXPECT_EQ(selection.excluded[2].reason, Exclusion::lost);
  EXPECT_EQ(selection.excluded[3].reason, Exclusion::compute_prohibited);
  EXPECT_EQ(selection.excluded[4].reason, Exclusion::memory_unknown);
}

TEST(Selection, ALostGpuIsExcludedEvenWithStaleIdleReadings) {
  Device device = gpu(0, 0, 0);
  device.lost = true;
  EXPECT_TRUE(eligible({device}).empty());
}

TEST(Selection, MissingUtilizationIsJudgedByMemoryAlone) {
  Device device = gpu(0, 0, 0);
  device.state[utilization_gpu] = std::unexpected(Unavailable::not_supported);
  EXPECT_EQ(eligible({device}).size(), 1U);
}

TEST(Selection, OrdersByFreeMemory) {
  const SelectionCriteria criteria{.order = GpuOrder::free_memory};
  EXPECT_EQ(eligible({gpu(0, 2, 0), gpu(1, 0, 0), gpu(2, 1, 0), gpu(3, 0, 0)}, criteria),
            (std::vector<std::size_t>{1, 3, 2, 0}));
}

TEST(Selection, OrdersByPowerWithUnknownPowerLast) {
  std::vector<Device> devices{gpu(0, 0, 0), gpu(1, 0, 0), gpu(2, 0, 0)};
  devices[0].state[power_draw] = std::unexpected(Unavailable::not_supported);
  devices[1].state[power_draw] = 90.0;
  devices[2].state[power_draw] = 30.0;
  EXPECT_EQ(eligible(devices, {.order = GpuOrder::power}), (std::vector<std::size_t>{2, 1, 0}));
}

// nvgpu's priority: the strongest GPU (highest power limit) first, then the one with the most
// free memory; a GPU whose limit is unknown last.
TEST(Selection, OrdersByPriorityPowerLimitThenFreeMemory) {
  std::vector<Device> devices{gpu(0, 0, 0), gpu(1, 2, 0), gpu(2, 1, 0), gpu(3, 0, 0)};
  devices[0].state[power_limit] = std::unexpected(Unavailable::not_supported);
  devices[1].state[power_limit] = 300.0;
  devices[2].state[power_limit] = 300.0;
  devices[3].state[power_limit] = 250.0;
  EXPECT_EQ(eligible(devices, {.order = GpuOrder::priority}),
            (std::vector<std::size_t>{2, 1, 3, 0}));
}

TEST(Selection, IndexOrderFollowsTheIndexNotThePosition) {
  EXPECT_EQ(eligible({gpu(3, 0, 0), gpu(1, 0, 0)}), (std::vector<std::size_t>{1, 0}));
}

// A vGPU host's VMs use it and the host cannot run CUDA on it: never eligible, even idle and
// with no VM, and not for lack of readings.
TEST(Selection, AVgpuHostIsNeverEligible) {
  Device host = gpu(0, 0, 0);
  host.vgpu = VgpuHost{};
  const Selection selection = select_gpus(GpuReading{.devices = {host, gpu(1, 0, 0)}}, {});
  EXPECT_EQ(selection.eligible, (std::vector<std::size_t>{1}));
  ASSERT_EQ(selection.excluded.size(), 1U);
  EXPECT_EQ(selection.excluded[0].reason, Exclusion::vgpu_host);
}

TEST(Selection, NoGpusNoEligibleNoExcluded) {
  const Selection selection = select_gpus(GpuReading{}, {});
  EXPECT_TRUE(selection.eligible.empty());
  EXPECT_TRUE(selection.excluded.empty());
}

TEST(Selection, MemoryPercent) {
  EXPECT_DOUBLE_EQ(*memory_used_percent(gpu(0, 4, 0).state), 25.0);
  DeviceState zero_total = gpu(0, 0, 0).state;
  zero_total[memory_total] = 0.0;
  EXPECT_FALSE(memory_used_percent(zero_total).has_value());
}

}  // namespace gpumeter::selection_test
