// SPDX-License-Identifier: MIT
// vGPU use per VM through the real store: records written in batches (one per round, several
// per minute) sum per minute, and vm_usage() adds the minutes of a window per VM and GPU.
#include "store/vgpu_use.h"

#include <gtest/gtest.h>

#include <string_view>

#include "store/write.h"
#include "support/store_fixtures.h"
#include "support/temp_dir.h"

namespace gpumeter::store::vgpu_use_test {

using gpumeter::testing::TempDir;
using testing::kMinute;
using testing::kSecond;
using testing::kT0;

VgpuUseRecord use(const char* vm, const char* gpu, TimeUs begin, double seconds, double sm_percent,
                  std::uint64_t fb) {
  return VgpuUseRecord{.gpu_uuid = gpu,
                       .gpu_index = std::string_view(gpu).starts_with("GPU-b") ? 1U : 0U,
                       .vm_id = vm,
                       .vgpu_uuid = std::string("u-") + vm,
                       .vgpu_type = "NVIDIA A16-4Q",
                       .begin_us = begin,
                       .end_us = begin + static_cast<TimeUs>(seconds * 1e6),
                       .sm_busy_seconds = sm_percent / 100.0 * seconds,
                       .fb_used_bytes = fb};
}

TEST(VgpuUse, MinutesSumPerVmAndGpu) {
  TempDir dir;
  Store store = testing::open_store(dir / "vgpu.db");
  // VM "a": 30 s at 50 % and 30 s at 100 % in the first minute, 60 s at 0 % in the second;
  // VM "b" on the other GPU: 60 s at 20 %; a round after the window is not counted.
  Batch first;
  first.vgpu_use = {use("a", "GPU-aaaa", kT0, 30, 50, 1000), use("b", "GPU-bbbb", kT0, 60, 20, 7)};
  Batch second;
  second.vgpu_use = {use("a", "GPU-aaaa", kT0 + 30 * kSecond, 30, 100, 3000),
                     use("a", "GPU-aaaa", kT0 + kMinute, 60, 0, 2000),
                     use("a", "GPU-aaaa", kT0 + 2 * kMinute, 60, 100, 9000)};
  ASSERT_TRUE(write(store, first).has_value());
  ASSERT_TRUE(write(store, second).has_value());

  auto rows = vm_usage(store, kT0, kT0 + 2 * kMinute);
  ASSERT_TRUE(rows.has_value()) << rows.error().message;
  ASSERT_EQ(rows->size(), 2U);
  const VmUsageRow& a = rows->at(0);
  EXPECT_EQ(a.host, "node1");
  EXPECT_EQ(a.vm_id, "a");
  EXPECT_EQ(a.vgpu_type, "NVIDIA A16-4Q");
  EXPECT_EQ(a.gpu_uuid, "GPU-aaaa");
  EXPECT_DOUBLE_EQ(a.vgpu_hours, 120.0 / 3600);
  EXPECT_DOUBLE_EQ(a.sm_busy_hours, 45.0 / 3600);
  EXPECT_DOUBLE_EQ(*a.sm_percent_while_active, 37.5);
  EXPECT_EQ(a.peak_fb_used_bytes, 3000U);
  const VmUsageRow& b = rows->at(1);
  EXPECT_EQ(b.vm_id, "b");
  EXPECT_EQ(b.gpu_index, 1U);
  EXPECT_DOUBLE_EQ(*b.sm_percent_while_active, 20);
}

TEST(VgpuUse, BadRecordsAndWindowsAreRefused) {
  TempDir dir;
  Store store = testing::open_store(dir / "vgpu.db");
  EXPECT_FALSE(validate(use("", "GPU-aaaa", kT0, 1, 0, 0)).has_value());
  EXPECT_FALSE(validate(use("a", "", kT0, 1, 0, 0)).has_value());
  VgpuUseRecord busy = use("a", "GPU-aaaa", kT0, 1, 0, 0);
  busy.sm_busy_seconds = 2;  // busier than the interval is long
  EXPECT_FALSE(validate(busy).has_value());
  Batch batch;
  batch.vgpu_use = {busy};
  EXPECT_FALSE(write(store, batch).has_value());
  EXPECT_FALSE(vm_usage(store, kT0, kT0).has_value());
}

}  // namespace gpumeter::store::vgpu_use_test
