// SPDX-License-Identifier: MIT
// The writer: a flush writes the queue in one transaction; on a full database it writes
// nothing, keeps the records (bounded, oldest device samples dropped first) and says so; once
// there is room again the next flush writes them all.
#include "store/writer.h"

#include <gtest/gtest.h>
#include <malloc.h>  // mallinfo2: glibc

#include <chrono>
#include <iostream>
#include <thread>

#include "store/history.h"
#include "support/raw_database.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::writer_test {

using gpumeter::testing::TempDir;
using testing::interval;
using testing::kHour;
using testing::kMinute;
using testing::kSecond;
using testing::kT0;
using testing::process;
using testing::sample;

std::int64_t count(Store& store, const std::string& table) {
  testing::RawDatabase raw(store.path());
  return raw.integer("SELECT count(*) FROM " + table);
}

// Fills the database up to its cap: the next write that needs a new page fails as on a full
// disk. The cap is the file's current size in pages.
void fill_up(Store& store) {
  const auto size = store.size();
  ASSERT_TRUE(size);
  ASSERT_TRUE(store.set_max_size(size->file_bytes));
}

TEST(Writer, AFlushWritesEverythingQueued) {
  TempDir dir;
  Store store = testing::open_store(dir / "w.db");
  Writer writer(store);
  ASSERT_TRUE(writer.add(DeviceRecord{.uuid = "GPU-a", .name = "H100", .seen_us = kT0}));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(writer.add(sample("GPU-a", kT0 + i * kSecond, i)));
  ASSERT_TRUE(writer.add(interval(process(1, "ada", "GPU-a"), kT0, kT0 + kMinute, 50)));
  ASSERT_TRUE(writer.add(TaskRecord{.id = 1, .name = "t", .begin_us = kT0, .end_us = kT0 + 1}));
  EXPECT_EQ(writer.state().queued_rows, 8U);
  const auto report = writer.flush();
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->device_samples, 5U);
  const WriterState state = writer.state();
  EXPECT_EQ(state.queued_rows, 0U);
  EXPECT_EQ(state.written_rows, 8U);
  EXPECT_EQ(state.flushes, 1U);
  EXPECT_FALSE(state.last_error);
  EXPECT_EQ(count(store, "device_samples"), 5);
  EXPECT_EQ(count(store, "ledger"), 1);
  EXPECT_EQ(count(store, "tasks"), 1);
  ASSERT_TRUE(writer.flush());  // nothing queued: nothing to do
  EXPECT_EQ(writer.state().flushes, 1U);
}

TEST(Writer, AFullDatabaseKeepsTheRecordsQueuedUntilThereIsRoomAgain) {
  TempDir dir;
  Store store = testing::open_store(dir / "full.db");
  Writer writer(store);
  ASSERT_TRUE(writer.add(sample("GPU-a", kT0, 1)));
  ASSERT_TRUE(writer.flush());
  fill_up(store);
  // Enough rows to need many new pages.
  for (int i = 1; i <= 2000; ++i) ASSERT_TRUE(writer.add(sample("GPU-a", kT0 + i * kSecond, 7)));
  ASSERT_TRUE(writer.add(interval(process(1, "ada", "GPU-a"), kT0, kT0 + kMinute, 50)));
  for (int attempt = 1; attempt <= 2; ++attempt) {
    const auto failed = writer.flush();
    ASSERT_FALSE(failed);
    EXPECT_EQ(failed.error().code, ErrorCode::io);
    EXPECT_NE(failed.error().message.find("full"), std::string::npos) << failed.error().message;
    const WriterState state = writer.state();
    EXPECT_EQ(state.queued_rows, 2001U);
    EXPECT_EQ(state.failed_flushes, static_cast<std::uint64_t>(attempt));
    EXPECT_EQ(state.consecutive_failures, static_cast<std::uint64_t>(attempt));
    ASSERT_TRUE(state.last_error);
    EXPECT_NE(state.last_error->find("full"), std::string::npos);
    EXPECT_EQ(count(store, "device_samples"), 1);  // rolled back: nothing of the batch
    EXPECT_EQ(count(store, "ledger"), 0);
  }
  ASSERT_TRUE(store.set_max_size(std::nullopt));
  const auto report = writer.flush();
  ASSERT_TRUE(report) << report.error().message;
  const WriterState state = writer.state();
  EXPECT_EQ(state.queued_rows, 0U);
  EXPECT_EQ(state.consecutive_failures, 0U);
  EXPECT_EQ(state.failed_flushes, 2U);
  EXPECT_FALSE(state.last_error);
  EXPECT_EQ(count(store, "device_samples"), 2001);
  EXPECT_EQ(count(store, "ledger"), 1);
  auto problems = store.integrity_check();
  ASSERT_TRUE(problems);
  EXPECT_TRUE(problems->empty());
}

// While a flush writes (here: waits for another connection's lock), its rows still count as
// queued: they are not written yet, and come back to the queue if the flush fails.
TEST(Writer, WithoutAStoreRecordsQueueUntilOneIsAttached) {
  TempDir dir;
  Writer writer(WriterConfig{});
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(writer.add(sample("GPU-a", kT0 + i * kSecond, i)));
  const auto failed = writer.flush();
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, ErrorCode::io);
  WriterState state = writer.state();
  EXPECT_EQ(state.queued_rows, 3U);
  EXPECT_EQ(state.consecutive_failures, 1U);
  EXPECT_EQ(state.last_error, "no database is open");
  Store store = testing::open_store(dir / "late.db");
  writer.attach(store);
  ASSERT_TRUE(writer.flush());
  state = writer.state();
  EXPECT_EQ(state.queued_rows, 0U);
  EXPECT_EQ(state.written_rows, 3U);
  EXPECT_EQ(state.consecutive_failures, 0U);
  EXPECT_EQ(count(store, "device_samples"), 3);
}

TEST(Writer, RowsAFlushIsWritingStillCountAsQueued) {
  TempDir dir;
  Store store = testing::open_store(dir / "busy.db", {.busy_timeout = std::chrono::seconds(3)});
  Writer writer(store);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(writer.add(sample("GPU-a", kT0 + i * kSecond, i)));
  testing::RawDatabase other(store.path());
  other.exec("BEGIN IMMEDIATE");
  std::thread flushing([&writer] { EXPECT_FALSE(writer.flush()); });
  // Not a bound on anything: the flush has taken its batch long before, and waits for the lock.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(writer.state().queued_rows, 100U);
  flushing.join();
  other.exec("ROLLBACK");
  EXPECT_EQ(writer.state().queued_rows, 100U);
  ASSERT_TRUE(writer.flush());
  EXPECT_EQ(writer.state().queued_rows, 0U);
}

// What the queue costs the heap per row, measured (docs/daemon.md quotes the figures): a full
// queue of device samples, and of process intervals, with real-length GPU uuids. The bound is
// loose; the figures are printed.
TEST(Writer, TheQueuesMemoryPerRowIsMeasured) {
  TempDir dir;
  Store store = testing::open_store(dir / "memory.db");
  const std::string uuid = "GPU-e5a7b9c1-5cfd-4b4d-86a9-0c5d3e2b1a85";
  constexpr int kRows = 200'000;
  const auto measure = [&](const char* what, auto make) {
    Writer writer(store, {.max_queued_rows = kRows});
    const std::size_t before = mallinfo2().uordblks;
    for (int i = 0; i < kRows; ++i) ASSERT_TRUE(writer.add(make(i)));
    const double per_row = static_cast<double>(mallinfo2().uordblks - before) / kRows;
    std::cout << kRows << " queued " << what << ": " << per_row << " bytes per row, "
              << per_row * kRows / 1e6 << " MB\n";
    EXPECT_LT(per_row, 4096.0) << what;
  };
  measure("device samples", [&](int i) { return sample(uuid, kT0 + i * kSecond, 50); });
  const ProcessIdentity who = process(4242, "alice", uuid);
  measure("process intervals",
          [&](int i) { return interval(who, kT0 + i * kMinute, kT0 + (i + 1) * kMinute, 50); });
}

// The recorder's progress as stored; nullopt when absent or unreadable (a failure is reported).
std::optional<TimeUs> progress(Store& store) {
  auto until = recorded_until(store);
  EXPECT_TRUE(until.has_value()) << until.error().message;
  return until.value_or(std::nullopt);
}

TEST(Writer, TheRecordersProgressIsWrittenWithItsBatchOnly) {
  TempDir dir;
  Store store = testing::open_store(dir / "progress.db");
  Writer writer(store);
  ASSERT_TRUE(writer.add(sample("GPU-a", kT0, 1)));
  ASSERT_TRUE(writer.flush());
  EXPECT_EQ(progress(store), std::optional<TimeUs>{});
  fill_up(store);
  for (int i = 1; i <= 2000; ++i) ASSERT_TRUE(writer.add(sample("GPU-a", kT0 + i * kSecond, 7)));
  ASSERT_TRUE(writer.add(interval(process(1, "ada", "GPU-a"), kT0, kT0 + kMinute, 50)));
  writer.set_recorded_until(kT0 + kMinute);
  ASSERT_FALSE(writer.flush());
  // The batch did not reach the disk, and neither did the progress that goes with it.
  EXPECT_EQ(progress(store), std::optional<TimeUs>{});
  writer.set_recorded_until(kT0 + 30 * kSecond);  // an older mark never lowers it
  ASSERT_TRUE(store.set_max_size(std::nullopt));
  ASSERT_TRUE(writer.flush());
  EXPECT_EQ(progress(store), kT0 + kMinute);
  // Progress alone is worth a flush.
  writer.set_recorded_until(kT0 + 2 * kMinute);
  ASSERT_TRUE(writer.flush());
  EXPECT_EQ(writer.state().flushes, 3U);
  EXPECT_EQ(progress(store), kT0 + 2 * kMinute);
  // It survives a reopening, and belongs to its host.
  Store again = testing::open_store(dir / "progress.db");
  EXPECT_EQ(progress(again), kT0 + 2 * kMinute);
  Store other = testing::open_store(dir / "progress.db", {.host = "node2"});
  EXPECT_EQ(progress(other), std::optional<TimeUs>{});
}

TEST(Writer, PastItsBoundTheQueueDropsTheOldestDeviceSamplesFirst) {
  TempDir dir;
  Store store = testing::open_store(dir / "bound.db");
  Writer writer(store, {.max_queued_rows = 10});
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(writer.add(sample("GPU-a", kT0 + i * kSecond, i)));
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(
        writer.add(interval(process(static_cast<Pid>(i), "ada", "GPU-a"), kT0, kT0 + kMinute, 10)));
  }
  WriterState state = writer.state();
  EXPECT_EQ(state.queued_rows, 10U);
  EXPECT_EQ(state.dropped_device_samples, 2U);
  // Nine more intervals: the six remaining samples go, then the three oldest intervals.
  for (int i = 4; i < 13; ++i) {
    ASSERT_TRUE(
        writer.add(interval(process(static_cast<Pid>(i), "ada", "GPU-a"), kT0, kT0 + kMinute, 10)));
  }
  state = writer.state();
  EXPECT_EQ(state.queued_rows, 10U);
  EXPECT_EQ(state.dropped_device_samples, 8U);
  EXPECT_EQ(state.dropped_process_intervals, 3U);
  ASSERT_TRUE(writer.flush());
  EXPECT_EQ(count(store, "device_samples"), 0);
  const auto rows = ledger(store, {.since_us = 0, .until_us = kT0 + kHour});
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 10U);
  for (const LedgerRow& row : *rows) EXPECT_GE(row.process.pid, 3U);
}

TEST(Writer, ABadRecordIsRefusedAndCounted) {
  TempDir dir;
  Store store = testing::open_store(dir / "bad.db");
  Writer writer(store);
  ProcessInterval backwards = interval(process(1, "ada", "GPU-a"), kT0, kT0 + kMinute, 10);
  std::swap(backwards.begin_us, backwards.end_us);
  const auto added = writer.add(backwards);
  ASSERT_FALSE(added);
  EXPECT_EQ(added.error().code, ErrorCode::invalid_input);
  ASSERT_FALSE(writer.add(DeviceSampleRecord{.time_us = kT0}));  // no uuid
  EXPECT_EQ(writer.state().rejected_records, 2U);
  EXPECT_EQ(writer.state().queued_rows, 0U);
}

TEST(Writer, TheLatestDescriptionOfAGpuWins) {
  TempDir dir;
  Store store = testing::open_store(dir / "desc.db");
  Writer writer(store);
  ASSERT_TRUE(writer.add(DeviceRecord{.uuid = "GPU-a", .name = "old", .seen_us = kT0}));
  ASSERT_TRUE(writer.add(DeviceRecord{.uuid = "GPU-a", .name = "new", .seen_us = kT0 + 1}));
  EXPECT_EQ(writer.state().queued_rows, 1U);
  ASSERT_TRUE(writer.flush());
  const auto all = devices(store);
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 1U);
  EXPECT_EQ(all->front().device.name, "new");
}

}  // namespace gpumeter::store::writer_test
