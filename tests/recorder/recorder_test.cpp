// SPDX-License-Identifier: MIT
// The history recorder between a sampler over scripted sources (rounds stepped by the test)
// and a real database: device samples of every round, one ledger row per process and GPU
// with the figures of the timeline, `final` once a process has exited, the ledger continued
// by a recorder that restarts, tasks, CSV rows, and a full database that is logged once and
// caught up with.
#include "recorder/recorder.h"

#include <gtest/gtest.h>
#include <stdlib.h>  // setenv: POSIX

#include <ctime>

#include "store/history.h"
#include "support/raw_database.h"
#include "support/sampler_fakes.h"
#include "support/temp_dir.h"

namespace gpumeter::recorder::recorder_test {

using gpumeter::testing::busy;
using gpumeter::testing::on_gpu;
using gpumeter::testing::read_bytes;
using gpumeter::testing::ScriptedGpus;
using gpumeter::testing::ScriptedHost;
using gpumeter::testing::TempDir;

constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kT0 = 1'767'225'600 * kSecond;  // 2026-01-01T00:00:00Z
constexpr TimeUs kPeriod = 250'000;
constexpr std::uint64_t kGiB = 1ULL << 30;
constexpr Pid kTrainer = 10;  // holds 1 GiB throughout, 50 % SM
constexpr Pid kShort = 20;    // holds 2 GiB until 25 s, then exits
const TimeUs kTrainerStart = kT0 - 3600 * kSecond;
const TimeUs kShortStart = kT0 - 10 * kSecond;

TimeUs at(double seconds) {
  return kT0 + static_cast<TimeUs>(seconds * 1e6);
}

// One sampler over scripted sources, its rounds stepped by the test, and a recorder.
class Machine {
 public:
  // With `open_now` false, the recorder gets no store and opens `database` itself
  // (RecorderConfig::open_database), as the daemon's does when it could not at start.
  Machine(const std::filesystem::path& database, RecorderConfig config,
          std::vector<std::string>& log, bool open_now = true)
      : store_(open_now ? std::optional(open(database)) : std::nullopt),
        sampler_(gpus_, host_, sampler_config()),
        recorder_(store_ ? &*store_ : nullptr, opening(database, std::move(config)),
                  [&log](const std::string& line) { log.push_back(line); }) {
    gpus_.gpus.resize(1);
    gpus_.gpus[0].uuid = "GPU-0";
    host_.processes[kTrainer] = {kTrainerStart, {}};
    host_.processes[kShort] = {kShortStart, {}};
  }

  // Rounds every second over (from, to], as the GPUs and processes were then.
  void run(int from, int to) {
    for (int s = from + 1; s <= to; ++s) {
      std::vector<GpuProcess> listed{on_gpu(kTrainer, kGiB)};
      if (s < 25) listed.push_back(on_gpu(kShort, 2 * kGiB));
      if (s == 25) host_.processes.erase(kShort);
      std::vector<PidGpuSample> samples;
      for (TimeUs t = at(s - 1) + kPeriod; t <= at(s); t += kPeriod)
        samples.push_back(busy(kTrainer, t, 50));
      gpus_.gpus[0].processes = listed;
      gpus_.gpus[0].buffered = samples;
      gpus_.gpus[0].energy_joules = 100.0 * s;
      ASSERT_TRUE(sampler_.sample_once(at(s)));
    }
  }

  // What the thread does at a record boundary.
  void record(int until) { recorder_.record(sampler_, at(until), at(until + 1)); }
  void finish() { recorder_.finish(sampler_); }
  Recorder& recorder() { return recorder_; }
  store::Store& store() { return *store_; }

 private:
  SamplerConfig sampler_config() {
    SamplerConfig config;
    config.on_snapshot = [this](const Snapshot& snapshot) { recorder_.observe(snapshot); };
    return config;
  }
  static RecorderConfig opening(const std::filesystem::path& path, RecorderConfig config) {
    config.database = path;
    config.open_database = [path] { return store::Store::open(path, {.host = "node1"}); };
    return config;
  }
  static store::Store open(const std::filesystem::path& path) {
    auto store = store::Store::open(path, {.host = "node1"});
    if (!store) {
      ADD_FAILURE() << store.error().message;
      std::abort();
    }
    return std::move(*store);
  }

  std::optional<store::Store> store_;
  ScriptedGpus gpus_;
  ScriptedHost host_;
  Sampler sampler_;
  Recorder recorder_;
};

RecorderConfig ten_seconds(const std::filesystem::path& csv) {
  return RecorderConfig{
      .record_interval_us = 10 * kSecond, .csv_directory = csv, .csv_interval_us = 30 * kSecond};
}

std::vector<store::LedgerRow> ledger(const std::filesystem::path& database) {
  auto store = store::Store::open(database, {.host = "node1", .read_only = true});
  EXPECT_TRUE(store);
  if (!store) return {};
  auto rows = store::ledger(*store, {.since_us = 0, .until_us = at(3600)});
  EXPECT_TRUE(rows);
  return rows.value_or(std::vector<store::LedgerRow>{});
}

const store::LedgerRow* row_of(const std::vector<store::LedgerRow>& rows, Pid pid) {
  for (const store::LedgerRow& row : rows) {
    if (row.process.pid == pid) return &row;
  }
  return nullptr;
}

class RecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC0", 1);
    tzset();
  }
  TempDir dir_;
  std::vector<std::string> log_;
};

TEST_F(RecorderTest, TheLedgerHoldsTheTimelinesFigures) {
  {
    Machine machine(dir_ / "h.db", ten_seconds(dir_ / "csv"), log_);
    machine.run(-1, 0);  // the first round, at 0 s
    for (int boundary = 10; boundary <= 40; boundary += 10) {
      machine.run(boundary - 10 + std::min(boundary - 10, 1), boundary + 1);
      machine.record(boundary);  // after a round past the boundary's driver period
    }
  }
  const std::vector<store::LedgerRow> rows = ledger(dir_ / "h.db");
  ASSERT_EQ(rows.size(), 2U);
  const store::LedgerRow* trainer = row_of(rows, kTrainer);
  ASSERT_NE(trainer, nullptr);
  EXPECT_EQ(trainer->process.start_time_us, kTrainerStart);
  EXPECT_EQ(trainer->process.gpu_uuid, "GPU-0");
  EXPECT_DOUBLE_EQ(trainer->gpu_seconds, 40.0);
  EXPECT_NEAR(trainer->sm_busy_seconds, 20.0, 1e-6);
  EXPECT_EQ(trainer->peak_memory_bytes, kGiB);
  EXPECT_NEAR(trainer->energy_joules, 4000.0, 1e-3) << "the only busy process, 100 W";
  EXPECT_EQ(trainer->first_seen_us, at(0));
  EXPECT_EQ(trainer->last_seen_us, at(40));
  EXPECT_FALSE(trainer->final);
  const store::LedgerRow* gone = row_of(rows, kShort);
  ASSERT_NE(gone, nullptr);
  EXPECT_DOUBLE_EQ(gone->gpu_seconds, 25.0);
  EXPECT_EQ(gone->sm_busy_seconds, 0.0);
  EXPECT_EQ(gone->last_seen_us, at(25));
  EXPECT_TRUE(gone->final);

  store::testing::RawDatabase raw(dir_ / "h.db");
  EXPECT_EQ(raw.integer("SELECT count(*) FROM device_samples"), 42) << "every round, 0..41 s";
  EXPECT_EQ(raw.integer("SELECT count(*) FROM process_minutes"), 2);
  EXPECT_EQ(raw.integer("SELECT value FROM meta WHERE key LIKE 'recorded_until_us.%'"), at(40));
  EXPECT_TRUE(log_.empty()) << log_.front();
}

TEST_F(RecorderTest, ARestartedRecorderContinuesTheLedger) {
  {
    Machine machine(dir_ / "h.db", ten_seconds(dir_ / "csv"), log_);
    machine.run(-1, 11);
    machine.record(10);
    machine.run(11, 14);
    machine.finish();  // SIGTERM at 14 s: recorded up to 14 s less the driver period
  }
  const store::LedgerRow before = *row_of(ledger(dir_ / "h.db"), kTrainer);
  EXPECT_DOUBLE_EQ(before.gpu_seconds, 13.75);
  {
    Machine machine(dir_ / "h.db", ten_seconds(dir_ / "csv"), log_);
    machine.run(19, 31);  // restarted at 20 s
    machine.record(30);
  }
  const std::vector<store::LedgerRow> rows = ledger(dir_ / "h.db");
  ASSERT_EQ(rows.size(), 2U) << "one row per process and GPU, continued";
  const store::LedgerRow* trainer = row_of(rows, kTrainer);
  ASSERT_NE(trainer, nullptr);
  EXPECT_DOUBLE_EQ(trainer->gpu_seconds, 13.75 + 10.0);
  EXPECT_NEAR(trainer->sm_busy_seconds, (13.75 + 10.0) / 2, 1e-6);
  EXPECT_EQ(trainer->first_seen_us, at(0));
  EXPECT_EQ(trainer->last_seen_us, at(30));
}

TEST_F(RecorderTest, CsvRowsAverageEachCsvInterval) {
  {
    Machine machine(dir_ / "h.db", ten_seconds(dir_ / "csv"), log_);
    machine.run(-1, 0);
    for (int boundary = 10; boundary <= 60; boundary += 10) {
      machine.run(boundary - 10 + std::min(boundary - 10, 1), boundary + 1);
      machine.record(boundary);
    }
  }
  // [0, 30): the trainer at 50 %; the short process held memory idle. [30, 60): the trainer.
  EXPECT_EQ(read_bytes(dir_ / "csv" / "2026-01-01.csv"),
            "Timestamp,User,PID,GPU Number,GPU Usage\n"
            "1767225600,,10,0,50\n"
            "1767225600,,20,0,0\n"
            "1767225630,,10,0,50\n");
}

TEST_F(RecorderTest, SettledTasksAreKept) {
  {
    Machine machine(dir_ / "h.db", ten_seconds(dir_ / "csv"), log_);
    machine.run(-1, 0);
    machine.recorder().settled(task::Task{.id = 3,
                                          .name = "decode",
                                          .owner = {kTrainer, kTrainerStart},
                                          .state = task::TaskState::ended,
                                          .begin_us = at(0),
                                          .end_us = at(1),
                                          .figures_error = "no samples"});
    machine.run(0, 11);
    machine.record(10);
  }
  store::testing::RawDatabase raw(dir_ / "h.db");
  EXPECT_EQ(raw.text("SELECT name || ':' || usage_error FROM tasks"), "decode:no samples");
}

TEST_F(RecorderTest, AFullDatabaseIsLoggedOnceAndCaughtUpWith) {
  {
    Machine machine(dir_ / "h.db", ten_seconds(dir_ / "csv"), log_);
    machine.run(-1, 11);
    machine.record(10);
    // Full: the next write that needs a new page fails as on a full disk.
    const auto size = machine.store().size();
    ASSERT_TRUE(size);
    ASSERT_TRUE(machine.store().set_max_size(size->file_bytes));
    int boundary = 10;
    while (!machine.recorder().status().failing && boundary < 3600) {
      boundary += 10;
      machine.run(boundary - 9, boundary + 1);
      machine.record(boundary);
    }
    ASSERT_TRUE(machine.recorder().status().failing) << "the cap was never reached";
    for (int more = 0; more < 2; ++more) {  // two more failing writes
      boundary += 10;
      machine.run(boundary - 9, boundary + 1);
      machine.record(boundary);
    }
    ASSERT_EQ(log_.size(), 1U) << "one line when writes start failing, not one per write";
    EXPECT_NE(log_[0].find("cannot write"), std::string::npos) << log_[0];
    EXPECT_NE(log_[0].find("full"), std::string::npos) << log_[0];
    task::HistoryStatus status = machine.recorder().status();
    EXPECT_TRUE(status.failing);
    EXPECT_GT(status.queued_rows, 30U);
    ASSERT_TRUE(status.last_error);
    EXPECT_EQ(status.recorded_until_us, at(boundary)) << "sampling and recording went on";
    ASSERT_TRUE(machine.store().set_max_size(std::nullopt));
    machine.run(boundary + 1, boundary + 11);
    boundary += 10;
    machine.record(boundary);
    ASSERT_EQ(log_.size(), 2U);
    EXPECT_NE(log_[1].find("again"), std::string::npos) << log_[1];
    status = machine.recorder().status();
    EXPECT_FALSE(status.failing);
    EXPECT_EQ(status.queued_rows, 0U);
    EXPECT_EQ(status.dropped_rows, 0U);
  }
  const auto rows = ledger(dir_ / "h.db");
  const store::LedgerRow* trainer = row_of(rows, kTrainer);
  ASSERT_NE(trainer, nullptr);
  EXPECT_DOUBLE_EQ(trainer->gpu_seconds, static_cast<double>(trainer->last_seen_us - at(0)) / 1e6)
      << "nothing lost";
}

TEST_F(RecorderTest, ADatabaseThatCouldNotBeOpenedIsTriedEachIntervalAndCaughtUpWith) {
  const auto path = dir_ / "h.db";
  gpumeter::testing::write_bytes(path, std::string(8192, 'x'));  // not a database
  {
    Machine machine(path, ten_seconds(dir_ / "csv"), log_, false);
    machine.recorder().could_not_open(
        Error{ErrorCode::invalid_input, "h.db is not a gpumeter database"});  // the daemon's try
    machine.run(-1, 11);
    machine.record(10);
    machine.run(11, 21);
    machine.record(20);
    ASSERT_EQ(log_.size(), 1U) << "one line while it lasts, not one per try";
    EXPECT_NE(log_[0].find("h.db is not a gpumeter database"), std::string::npos) << log_[0];
    EXPECT_NE(log_[0].find("each record interval tries again"), std::string::npos) << log_[0];
    task::HistoryStatus status = machine.recorder().status();
    EXPECT_TRUE(status.failing);
    EXPECT_EQ(status.database, path.string());
    ASSERT_TRUE(status.last_error);
    EXPECT_NE(status.last_error->find("is not a gpumeter database"), std::string::npos);
    EXPECT_GT(status.queued_rows, 20U) << "every round's samples wait";
    EXPECT_EQ(read_bytes(path), std::string(8192, 'x')) << "the file is left as it was";

    std::filesystem::remove(path);  // the operator moves the damaged file away
    machine.run(21, 31);
    machine.record(30);
    ASSERT_EQ(log_.size(), 2U);
    EXPECT_NE(log_[1].find("again"), std::string::npos) << log_[1];
    status = machine.recorder().status();
    EXPECT_FALSE(status.failing);
    EXPECT_FALSE(status.last_error);
    EXPECT_EQ(status.queued_rows, 0U);
  }
  store::testing::RawDatabase raw(path);
  EXPECT_EQ(raw.integer("SELECT count(*) FROM device_samples"), 32) << "every round, 0..31 s";
  const std::vector<store::LedgerRow> rows = ledger(path);
  const store::LedgerRow* trainer = row_of(rows, kTrainer);
  ASSERT_NE(trainer, nullptr);
  EXPECT_DOUBLE_EQ(trainer->gpu_seconds, 30.0) << "the intervals recorded while it was closed";
}

}  // namespace gpumeter::recorder::recorder_test
