// SPDX-License-Identifier: MIT
// vGPU use per VM through the tiers of a real SQLite file: vgpu_minutes rolled up into
// vgpu_hours, late minutes rolled up again, retention of both tiers, and vm_usage() reading the
// hours once the minutes are gone.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/maintenance.h"
#include "store/vgpu_use.h"
#include "store/write.h"
#include "support/raw_database.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::vgpu_rollup_test {

using gpumeter::testing::TempDir;
using testing::kDay;
using testing::kHour;
using testing::kMinute;
using testing::kSecond;
using testing::kT0;
using testing::RawDatabase;

// `vm` active for the minute that begins at `begin`, at `sm_percent` SM, `fb` bytes in use.
VgpuUseRecord minute(const char* vm, TimeUs begin, double sm_percent, std::uint64_t fb,
                     const char* type = "NVIDIA A16-4Q") {
  return VgpuUseRecord{.gpu_uuid = "GPU-aaaa",
                       .vm_id = vm,
                       .vgpu_uuid = std::string("u-") + vm,
                       .vgpu_type = type,
                       .begin_us = begin,
                       .end_us = begin + kMinute,
                       .sm_busy_seconds = sm_percent / 100.0 * 60,
                       .fb_used_bytes = fb};
}

void write_use(Store& store, std::vector<VgpuUseRecord> records) {
  Batch batch;
  batch.vgpu_use = std::move(records);
  const auto written = write(store, batch);
  ASSERT_TRUE(written) << written.error().message;
}

// VM "a" busy every minute of two hours: 50 % SM in the first, 100 % in the second, its
// framebuffer growing by 1 MB a minute; VM "b" only in the first 10 minutes, at 20 %.
void write_two_hours(Store& store) {
  std::vector<VgpuUseRecord> records;
  for (int i = 0; i < 120; ++i) {
    records.push_back(minute("a", kT0 + i * kMinute, i < 60 ? 50 : 100,
                             static_cast<std::uint64_t>(i + 1) * 1'000'000));
    if (i < 10) records.push_back(minute("b", kT0 + i * kMinute, 20, 7));
  }
  write_use(store, std::move(records));
}

struct HourRow {
  double seconds = 0;
  double sm_busy_seconds = 0;
  std::int64_t fb_max = 0;
};

HourRow hour_row(const std::filesystem::path& path, const char* vm, TimeUs hour) {
  RawDatabase raw(path);
  const std::string where = fmt::format("WHERE vm_id = '{}' AND bucket_us = {}", vm, hour);
  return HourRow{.seconds = raw.real("SELECT seconds FROM vgpu_hours " + where),
                 .sm_busy_seconds = raw.real("SELECT sm_busy_seconds FROM vgpu_hours " + where),
                 .fb_max = raw.integer("SELECT fb_used_bytes_max FROM vgpu_hours " + where)};
}

std::vector<VmUsageRow> usage(Store& store, TimeUs since, TimeUs until) {
  auto rows = vm_usage(store, since, until);
  EXPECT_TRUE(rows) << rows.error().message;
  return rows ? *rows : std::vector<VmUsageRow>{};
}

TEST(VgpuRollUp, CompleteHoursAreSummedPerVm) {
  TempDir dir;
  const auto path = dir / "v.db";
  Store store = testing::open_store(path);
  write_two_hours(store);
  // At 1h30 only the first hour is complete.
  auto report = downsample(store, kT0 + kHour + 30 * kMinute);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->vgpu_hours_written, 2U);  // a and b, first hour
  EXPECT_EQ(RawDatabase(path).integer("SELECT count(*) FROM vgpu_hours"), 2);
  const HourRow a = hour_row(path, "a", kT0);
  EXPECT_DOUBLE_EQ(a.seconds, 3600);
  EXPECT_DOUBLE_EQ(a.sm_busy_seconds, 1800);
  EXPECT_EQ(a.fb_max, 60'000'000);
  EXPECT_DOUBLE_EQ(hour_row(path, "b", kT0).sm_busy_seconds, 120);
  report = downsample(store, kT0 + 2 * kHour);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->vgpu_hours_written, 1U);
  EXPECT_DOUBLE_EQ(hour_row(path, "a", kT0 + kHour).sm_busy_seconds, 3600);
  EXPECT_EQ(RawDatabase(path).text("SELECT vgpu_type FROM vgpu_hours LIMIT 1"), "NVIDIA A16-4Q");
  // Nothing new: nothing written again.
  report = downsample(store, kT0 + 2 * kHour);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->vgpu_hours_written, 0U);
}

TEST(VgpuRollUp, ALateMinuteRollsItsHourUpAgainWhole) {
  TempDir dir;
  const auto path = dir / "v.db";
  Store store = testing::open_store(path);
  write_two_hours(store);
  ASSERT_TRUE(downsample(store, kT0 + 2 * kHour));
  // VM "c" reported late for 12:30 of the first hour, with a newer type for VM "a" as well.
  write_use(store, {minute("c", kT0 + 30 * kMinute, 40, 5),
                    minute("a", kT0 + 59 * kMinute, 0, 1, "NVIDIA A16-8Q")});
  const auto report = downsample(store, kT0 + 2 * kHour);
  ASSERT_TRUE(report) << report.error().message;
  // From the reopened hour on: the first hour's a, b and c, and the second hour's a again.
  EXPECT_EQ(report->vgpu_hours_written, 4U);
  EXPECT_DOUBLE_EQ(hour_row(path, "c", kT0).sm_busy_seconds, 24);
  // a's minute at :59 now holds two records: 60 s more, none of it busy.
  const HourRow a = hour_row(path, "a", kT0);
  EXPECT_DOUBLE_EQ(a.seconds, 3660);
  EXPECT_DOUBLE_EQ(a.sm_busy_seconds, 1800);
  EXPECT_EQ(RawDatabase(path).text(fmt::format(
                "SELECT vgpu_type FROM vgpu_hours WHERE vm_id = 'a' AND bucket_us = {}", kT0)),
            "NVIDIA A16-8Q");
}

TEST(VgpuRetention, MinutesGoOnlyOnceRolledUpAndTheReportReadsTheHours) {
  TempDir dir;
  const auto path = dir / "v.db";
  Store store = testing::open_store(path);
  write_two_hours(store);
  const Retention retention{.vgpu_minutes_us = kDay};
  const TimeUs later = kT0 + 3 * kDay;
  // Not rolled up yet: prune alone keeps every minute.
  ASSERT_TRUE(prune(store, later, retention));
  EXPECT_EQ(RawDatabase(path).integer("SELECT count(*) FROM vgpu_minutes"), 130);

  const auto before = usage(store, kT0, kT0 + 2 * kHour);
  const auto report = maintain(store, later, retention);
  ASSERT_TRUE(report) << report->rows_deleted;
  EXPECT_EQ(report->vgpu_hours_written, 3U);
  EXPECT_EQ(RawDatabase(path).integer("SELECT count(*) FROM vgpu_minutes"), 0);
  EXPECT_EQ(RawDatabase(path).integer("SELECT count(*) FROM vgpu_hours"), 3);

  const auto after = usage(store, kT0, kT0 + 2 * kHour);
  ASSERT_EQ(after.size(), 2U);
  ASSERT_EQ(before.size(), 2U);
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].vm_id, before[i].vm_id);
    EXPECT_DOUBLE_EQ(after[i].vgpu_hours, before[i].vgpu_hours);
    EXPECT_DOUBLE_EQ(after[i].sm_busy_hours, before[i].sm_busy_hours);
    EXPECT_EQ(after[i].peak_fb_used_bytes, before[i].peak_fb_used_bytes);
    EXPECT_EQ(after[i].vgpu_type, before[i].vgpu_type);
  }
  EXPECT_DOUBLE_EQ(after[0].vgpu_hours, 2.0);
  EXPECT_DOUBLE_EQ(*after[0].sm_percent_while_active, 75.0);

  // A window that cuts both hours in half gets half of each from the hours: 0.5 h at 50 % and
  // 0.5 h at 100 %.
  const auto cut = usage(store, kT0 + 30 * kMinute, kT0 + 90 * kMinute);
  ASSERT_EQ(cut.size(), 2U);
  EXPECT_DOUBLE_EQ(cut[0].vgpu_hours, 1.0);
  EXPECT_DOUBLE_EQ(cut[0].sm_busy_hours, 0.75);

  // A minute recorded late for the pruned range is not stored.
  write_use(store, {minute("a", kT0 + 5 * kMinute, 100, 1)});
  EXPECT_EQ(RawDatabase(path).integer("SELECT count(*) FROM vgpu_minutes"), 0);
}

TEST(VgpuRetention, HoursArePrunedByTheirOwnRetention) {
  TempDir dir;
  const auto path = dir / "v.db";
  Store store = testing::open_store(path);
  write_two_hours(store);
  const Retention retention{.vgpu_minutes_us = kDay, .vgpu_hours_us = 2 * kDay};
  ASSERT_TRUE(maintain(store, kT0 + 1 * kDay + 3 * kHour, retention));
  EXPECT_EQ(RawDatabase(path).integer("SELECT count(*) FROM vgpu_hours"), 3);
  EXPECT_EQ(RawDatabase(path).integer("SELECT count(*) FROM vgpu_minutes"), 0);
  ASSERT_TRUE(maintain(store, kT0 + 3 * kDay, retention));
  EXPECT_EQ(RawDatabase(path).integer("SELECT count(*) FROM vgpu_hours"), 0);
  EXPECT_TRUE(usage(store, kT0, kT0 + 2 * kHour).empty());
}

TEST(VgpuRetention, MinutesMayNotOutliveHours) {
  const Retention bad{.vgpu_minutes_us = 2 * kDay, .vgpu_hours_us = kDay};
  const auto valid = validate(bad);
  ASSERT_FALSE(valid);
  EXPECT_EQ(valid.error().code, ErrorCode::invalid_input);
  EXPECT_TRUE(validate(Retention{.vgpu_minutes_us = kDay, .vgpu_hours_us = 0}));
  EXPECT_FALSE(validate(Retention{.vgpu_minutes_us = -1}));
}

}  // namespace gpumeter::store::vgpu_rollup_test
