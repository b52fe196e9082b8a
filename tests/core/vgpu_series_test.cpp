// SPDX-License-Identifier: MIT
// The sampler's series of vGPU instances: through the real loader on the simulated
// libnvidia-ml.so.1 (examples/scenarios/vgpu-host.json), each instance's records carry its
// scripted figures, bounded by the horizon; and the storage of one instance for an hour.
#include "core/vgpu_series.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/sampler.h"
#include "support/sampler_sim.h"

namespace gpumeter::vgpu_series_test {

using testing::SimulatedMachine;

constexpr std::uint64_t kGiB = 1ULL << 30;

// A copy of one instance's records, taken under the sampler's lock.
struct Copied {
  VgpuSeriesLabels labels;
  std::vector<VgpuRecord> records;
  std::size_t capacity = 0;
  std::size_t instances = 0;
};

Copied copy(const Sampler& sampler, std::uint32_t gpu, const std::string& selector) {
  Copied out;
  sampler.inspect_vgpu([&](const VgpuSeries& series) {
    out.capacity = series.capacity();
    out.instances = series.instances().size();
    const auto* found = series.find(gpu, selector);
    if (found == nullptr) return;
    out.labels = found->second.labels;
    for (std::size_t i = 0; i < found->second.records.size(); ++i)
      out.records.push_back(found->second.records[i]);
  });
  return out;
}

TEST_F(SimulatedMachine, EachVgpuInstanceKeepsItsScriptedFiguresPerRound) {
  open_example("vgpu-host");
  Sampler sampler(gpus(), host(), {});
  run(sampler, 0, 90);

  const Copied render = copy(sampler, 0, "b3a7d2c1-1e2f-4a5b-8c9d-0e1f2a3b4c02");
  EXPECT_EQ(render.instances, 4U);
  EXPECT_EQ(render.labels.vm_id, "5f0e2a44-9b1c-4d7e-8f60-1a2b3c4d5e02");
  EXPECT_EQ(render.labels.type_name, "NVIDIA A16-8Q");
  ASSERT_EQ(render.records.size(), 91U);  // one per round
  for (const VgpuRecord& record : render.records) {
    if (record.time_us == time_us(0)) continue;  // the driver may have no sample yet
    EXPECT_EQ(record[Engine::sm], 71);
    EXPECT_EQ(record[Engine::memory], 38);
    EXPECT_EQ(record.framebuffer(), 6 * kGiB);
  }

  // The designer desktop: Blender's bursts (55 % or 5 %) plus ffmpeg's 6 %, a video encode
  // at 42 %, JPEG and OFA from the 550 call, a framebuffer that grows at 60 s.
  const Copied desktop = copy(sampler, 0, "101");  // by the driver's instance id
  ASSERT_EQ(desktop.records.size(), 91U);
  std::set<int> sm_seen;
  for (const VgpuRecord& record : desktop.records) {
    if (record.time_us == time_us(0)) continue;
    ASSERT_TRUE(record[Engine::sm]) << record.time_us;
    sm_seen.insert(*record[Engine::sm]);
    EXPECT_EQ(record[Engine::encoder], 42);
    EXPECT_EQ(record[Engine::jpeg], 4);
    EXPECT_EQ(record[Engine::ofa], 3);
    const bool grown = record.time_us >= time_us(60);
    EXPECT_EQ(record.framebuffer(), grown ? 2560 * (1ULL << 20) : 1536 * (1ULL << 20));
  }
  EXPECT_EQ(sm_seen, (std::set<int>{11, 61}));

  // The VM without a guest driver: no uuid from the scenario, found by its id on GPU 1 only.
  EXPECT_TRUE(copy(sampler, 1, "202").records.size() == 91U);
  EXPECT_TRUE(copy(sampler, 0, "202").records.empty());
  EXPECT_TRUE(copy(sampler, 0, "no-such-instance").records.empty());
}

TEST_F(SimulatedMachine, VgpuSeriesAreBoundedByTheHorizon) {
  open_example("vgpu-host");
  SamplerConfig config;
  config.series.horizon_us = 30'000'000;
  Sampler sampler(gpus(), host(), config);
  run(sampler, 0, 90);
  const Copied render = copy(sampler, 0, "102");
  EXPECT_EQ(render.capacity, 31U);
  ASSERT_EQ(render.records.size(), 31U);
  EXPECT_EQ(render.records.front().time_us, time_us(60));
  EXPECT_EQ(render.records.back().time_us, time_us(90));
  std::size_t allocated = 0;
  sampler.inspect_vgpu([&](const VgpuSeries& series) { allocated = series.allocated_bytes(); });
  EXPECT_LE(allocated, 4 * 31 * sizeof(VgpuRecord));
  EXPECT_GE(sampler.stats().series_bytes, allocated);
}

// The default configuration (1 s, 1 h) on the vGPU host for two simulated hours: each of the
// four instances holds the last hour, 3,601 records, 345,696 bytes in all (docs/vgpu.md).
TEST_F(SimulatedMachine, FourInstancesHoldAnHourEachAtTheDefaults) {
  open_example("vgpu-host");
  Sampler sampler(gpus(), host(), {});
  run(sampler, 0, 2 * 3600);
  std::size_t allocated = 0;
  std::size_t records = 0;
  sampler.inspect_vgpu([&](const VgpuSeries& series) {
    allocated = series.allocated_bytes();
    for (const auto& [key, entry] : series.instances()) records += entry.records.size();
  });
  EXPECT_EQ(records, 4U * 3601U);
  EXPECT_EQ(allocated, 4U * 3601U * sizeof(VgpuRecord));
  EXPECT_EQ(allocated, 345'696U);
}

// One instance read every second for an hour, the default horizon: 3,601 records of 24 bytes,
// 86,424 bytes (docs/vgpu.md), and no more however long it runs.
TEST(VgpuSeries, OneInstanceForAnHourAtOneSecond) {
  VgpuSeries series(SeriesConfig{});
  VgpuInstance instance;
  instance.id = 7;
  instance.uuid = "u-7";
  instance.fb_used_bytes = 1ULL << 30;
  instance.utilization = VgpuUtilization{.sm = 150, .memory = -3, .encoder = 12.4};
  constexpr TimeUs kSecondUs = 1'000'000;
  for (TimeUs t = 0; t <= 2 * 3600; ++t) {
    ASSERT_EQ(series.add(vgpu_reading(0, t * kSecondUs, instance)), Insert::stored);
    series.drop_before(t * kSecondUs - SeriesConfig{}.horizon_us);
  }
  EXPECT_EQ(series.add(vgpu_reading(0, 5 * kSecondUs, instance)), Insert::out_of_order);
  const auto* found = series.find(0, "u-7");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->second.records.size(), 3601U);
  EXPECT_EQ(series.allocated_bytes(), 3601U * 24U);
  const VgpuRecord& newest = found->second.records.back();
  EXPECT_EQ(newest[Engine::sm], 100);  // clamped
  EXPECT_EQ(newest[Engine::memory], 0);
  EXPECT_EQ(newest[Engine::encoder], 12);
  EXPECT_FALSE(newest[Engine::jpeg]);  // the older call: absent, not 0
  // An instance that stops being read leaves nothing once the horizon has passed.
  series.drop_before(3 * 3600 * kSecondUs);
  EXPECT_TRUE(series.instances().empty());
  EXPECT_EQ(series.allocated_bytes(), 0U);
}

}  // namespace gpumeter::vgpu_series_test
