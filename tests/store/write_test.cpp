// SPDX-License-Identifier: MIT
// Writing batches: the ledger continues a process's row across restarts, intervals spread over
// the minute and hour detail, descriptions merge, and a bad batch writes nothing.
#include "store/write.h"

#include <gtest/gtest.h>

#include "store/history.h"
#include "support/raw_database.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::write_test {

using gpumeter::testing::TempDir;
using testing::interval;
using testing::kHour;
using testing::kMinute;
using testing::kSecond;
using testing::kT0;
using testing::process;

constexpr std::uint64_t kGiB = 1ULL << 30;

std::vector<LedgerRow> all_ledger(Store& store) {
  auto rows = ledger(store, {.since_us = 0, .until_us = kT0 + 365 * testing::kDay});
  EXPECT_TRUE(rows) << rows.error().message;
  return rows ? *rows : std::vector<LedgerRow>{};
}

TEST(Write, ALedgerRowIsContinuedAfterTheDaemonRestarts) {
  TempDir dir;
  const ProcessIdentity trainer = process(100, "ada", "GPU-a");
  {
    Store store = testing::open_store(dir / "l.db");
    // 30 s held at 50 % SM, 2 GiB, 300 J.
    ASSERT_TRUE(write(store, {.process_intervals = {
                                  interval(trainer, kT0, kT0 + 30 * kSecond, 50, 2 * kGiB, 10)}}));
  }
  {
    Store store = testing::open_store(dir / "l.db");
    ProcessInterval last = interval(trainer, kT0 + 30 * kSecond, kT0 + 60 * kSecond, 10, kGiB, 4);
    last.final = true;
    ASSERT_TRUE(write(store, {.process_intervals = {last}}));
    const auto rows = all_ledger(store);
    ASSERT_EQ(rows.size(), 1U);
    const LedgerRow& row = rows[0];
    EXPECT_EQ(row.process.pid, 100U);
    EXPECT_EQ(row.process.user, "ada");
    EXPECT_EQ(row.process.gpu_uuid, "GPU-a");
    EXPECT_EQ(row.first_seen_us, kT0);
    EXPECT_EQ(row.last_seen_us, kT0 + 60 * kSecond);
    EXPECT_DOUBLE_EQ(row.gpu_seconds, 60.0);
    EXPECT_DOUBLE_EQ(row.sm_busy_seconds, 15.0 + 3.0);
    EXPECT_EQ(row.peak_memory_bytes, 2 * kGiB);
    EXPECT_DOUBLE_EQ(row.energy_joules, 300.0 + 120.0);
    EXPECT_TRUE(row.final);
    EXPECT_DOUBLE_EQ(row.sm_percent_while_held().value(), 30.0);
  }
}

TEST(Write, EveryKeyPartMakesItsOwnRow) {
  TempDir dir;
  Store store = testing::open_store(dir / "k.db");
  ProcessIdentity original = process(100, "ada", "GPU-a");
  ProcessIdentity reused_pid = original;
  reused_pid.start_time_us += kHour;
  ProcessIdentity second_gpu = original;
  second_gpu.gpu_uuid = "GPU-b";
  second_gpu.gpu_index = 1;
  for (const auto& who : {original, reused_pid, second_gpu}) {
    ASSERT_TRUE(write(store, {.process_intervals = {interval(who, kT0, kT0 + kMinute, 1)}}));
  }
  Store other_host = testing::open_store(dir / "k.db", {.host = "node2"});
  ASSERT_TRUE(
      write(other_host, {.process_intervals = {interval(original, kT0, kT0 + kMinute, 1)}}));
  const auto rows = all_ledger(store);
  ASSERT_EQ(rows.size(), 4U);
  EXPECT_EQ(std::ranges::count(rows, "node2", &LedgerRow::host), 1);
}

TEST(Write, AnAbsentDescriptionKeepsWhatIsKnown) {
  TempDir dir;
  Store store = testing::open_store(dir / "d.db");
  ProcessIdentity who = process(7, "ada", "GPU-a");
  who.container = Container{"docker", "abc123"};
  ASSERT_TRUE(write(store, {.process_intervals = {interval(who, kT0, kT0 + kMinute, 1)}}));
  ProcessIdentity anonymous = who;
  anonymous.user.reset();
  anonymous.command.reset();
  anonymous.container.reset();
  ASSERT_TRUE(write(
      store, {.process_intervals = {interval(anonymous, kT0 + kMinute, kT0 + 2 * kMinute, 1)}}));
  const auto rows = all_ledger(store);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].process.user, "ada");
  EXPECT_EQ(rows[0].process.command, "python train.py");
  ASSERT_TRUE(rows[0].process.container);
  EXPECT_EQ(rows[0].process.container->id, "abc123");
}

TEST(Write, AnIntervalSpreadsOverTheMinutesAndHoursItCovers) {
  TempDir dir;
  Store store = testing::open_store(dir / "s.db");
  // 59:30 to 61:30 past kT0: 30 s in minute 59, 60 s in minute 60, 30 s in minute 61;
  // 30 s in hour 0 and 90 s in hour 1. Held throughout at 50 % SM, 100 W.
  const TimeUs begin = kT0 + 59 * kMinute + 30 * kSecond;
  ASSERT_TRUE(
      write(store, {.process_intervals = {interval(process(1, "ada", "GPU-a"), begin,
                                                   begin + 120 * kSecond, 50, kGiB, 100)}}));
  const auto minutes = process_detail(store, Resolution::minutes, kT0, kT0 + 2 * kHour);
  ASSERT_TRUE(minutes);
  ASSERT_EQ(minutes->size(), 3U);
  const double expected_held[] = {30, 60, 30};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*minutes)[i].bucket_us, kT0 + static_cast<TimeUs>(59 + i) * kMinute);
    EXPECT_DOUBLE_EQ((*minutes)[i].held_seconds, expected_held[i]);
    EXPECT_DOUBLE_EQ((*minutes)[i].sm_busy_seconds, expected_held[i] / 2);
    EXPECT_DOUBLE_EQ((*minutes)[i].energy_joules, expected_held[i] * 100);
    EXPECT_EQ((*minutes)[i].peak_memory_bytes, kGiB);
  }
  const auto hours = process_detail(store, Resolution::hours, kT0, kT0 + 2 * kHour);
  ASSERT_TRUE(hours);
  ASSERT_EQ(hours->size(), 2U);
  EXPECT_DOUBLE_EQ((*hours)[0].held_seconds, 30);
  EXPECT_DOUBLE_EQ((*hours)[1].held_seconds, 90);
  EXPECT_DOUBLE_EQ((*hours)[1].energy_joules, 9000);
}

TEST(Write, IntervalsOfOneMinuteAddUp) {
  TempDir dir;
  Store store = testing::open_store(dir / "a.db");
  const ProcessIdentity who = process(1, "ada", "GPU-a");
  Batch batch;
  for (int i = 0; i < 6; ++i) {
    const TimeUs begin = kT0 + i * 10 * kSecond;
    batch.process_intervals.push_back(interval(who, begin, begin + 10 * kSecond, 20 * i,
                                               static_cast<std::uint64_t>(i + 1) * kGiB));
  }
  ASSERT_TRUE(write(store, batch));
  const auto minutes = process_detail(store, Resolution::minutes, kT0, kT0 + kHour);
  ASSERT_TRUE(minutes);
  ASSERT_EQ(minutes->size(), 1U);
  EXPECT_DOUBLE_EQ(minutes->front().held_seconds, 60);
  // 10 s at 0, 20, 40, 60, 80 and 100 %: 30 busy seconds.
  EXPECT_DOUBLE_EQ(minutes->front().sm_busy_seconds, 30);
  EXPECT_EQ(minutes->front().peak_memory_bytes, 6 * kGiB);
}

TEST(Write, DeviceDescriptionsMergeAndSamplesReplaceTheirTwin) {
  TempDir dir;
  Store store = testing::open_store(dir / "dev.db");
  ASSERT_TRUE(write(store, {.devices = {{.uuid = "GPU-a",
                                         .index = 0,
                                         .name = "H100",
                                         .memory_total_bytes = 80 * kGiB,
                                         .seen_us = kT0}},
                            .device_samples = {testing::sample("GPU-a", kT0, 10)}}));
  DeviceSampleRecord again = testing::sample("GPU-a", kT0, 90);
  again.index = 3;
  ASSERT_TRUE(write(
      store, {.devices = {{.uuid = "GPU-a", .index = 3, .serial = "S1", .seen_us = kT0 + kMinute}},
              .device_samples = {again}}));
  const auto all = devices(store);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1U);
  const DeviceRecord& device = all->front().device;
  EXPECT_EQ(device.name, "H100");
  EXPECT_EQ(device.serial, "S1");
  EXPECT_EQ(device.memory_total_bytes, 80 * kGiB);
  EXPECT_EQ(device.index, 3U);
  EXPECT_EQ(all->front().first_seen_us, kT0);
  EXPECT_EQ(device.seen_us, kT0 + kMinute);
  const auto series = device_series(
      store, {.resolution = Resolution::samples, .since_us = kT0, .until_us = kT0 + 1});
  ASSERT_TRUE(series);
  ASSERT_EQ(series->size(), 1U);
  EXPECT_EQ(series->front().utilization_gpu_percent.avg, 90);
}

TEST(Write, ABatchWithABadRecordWritesNothing) {
  TempDir dir;
  Store store = testing::open_store(dir / "bad.db");
  ProcessInterval bad = interval(process(1, "ada", "GPU-a"), kT0, kT0 + kMinute, 10);
  bad.held_seconds = 120;  // longer than the interval
  const auto written = write(
      store, {.device_samples = {testing::sample("GPU-a", kT0, 1)}, .process_intervals = {bad}});
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code, ErrorCode::invalid_input);
  EXPECT_NE(written.error().message.find("held_seconds"), std::string::npos);
  testing::RawDatabase raw(store.path());
  EXPECT_EQ(raw.integer("SELECT count(*) FROM device_samples"), 0);
  EXPECT_EQ(raw.integer("SELECT count(*) FROM devices"), 0);
}

TEST(Write, TaskResultsComeBackAsTheyWent) {
  TempDir dir;
  Store store = testing::open_store(dir / "t.db");
  TaskRecord task{.id = 42, .name = "decode", .labels = {{"batch", "7"}, {"model", "llama"}}};
  task.owner = ProcessKey{1234, kT0 - kHour};
  task.uid = 1000;
  task.user = "ada";
  task.begin_us = kT0;
  task.end_us = kT0 + 90 * kSecond;
  Usage usage;
  GpuUsage gpu{.device = 1};
  gpu.engines[static_cast<std::size_t>(Engine::sm)] = {45.0, 50.0};
  gpu.engines[static_cast<std::size_t>(Engine::encoder)] = {std::unexpected(Unavailable::no_data),
                                                            std::unexpected(Unavailable::no_data)};
  gpu.memory = {1000, 2000, 4096};
  gpu.energy.processes_joules = 5400.5;
  gpu.confidence = {.sample_period_us = 166'667, .coverage = 0.75};
  usage.gpus.push_back(gpu);
  usage.host.cpu_user_seconds = 80.25;
  usage.host.peak_rss_bytes = 1ULL << 33;
  usage.host.complete = true;
  set_figures(task, usage, {{1, "GPU-b"}});
  ASSERT_TRUE(write(store, {.tasks = {task}}));
  ASSERT_TRUE(write(store, {.tasks = {task}}));  // the same task again replaces itself
  const auto stored = tasks(store, {.since_us = kT0, .until_us = kT0 + kHour, .user = "ada"});
  ASSERT_TRUE(stored) << stored.error().message;
  ASSERT_EQ(stored->size(), 1U);
  EXPECT_EQ(stored->front().host, "node1");
  EXPECT_EQ(stored->front().task, task);
  EXPECT_EQ(stored->front().task.gpus.at(0).uuid, "GPU-b");
  EXPECT_TRUE(stored->front().task.gpus.at(0).low_confidence);
  EXPECT_FALSE(stored->front().task.gpus.at(0).busy_seconds[2].has_value());
}

}  // namespace gpumeter::store::write_test
