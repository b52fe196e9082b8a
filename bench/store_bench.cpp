// SPDX-License-Identifier: MIT
// The history store (src/store) on a heavy machine: 8 GPUs sampled every second, 64 processes.
//  - BM_Ingest/record_s:N: one Writer flush as the daemon does it every N seconds: 8 x N device
//    samples and one N-second interval for each of 64 processes (each a ledger upsert plus its
//    minute and hour detail), in one transaction. Counters: rows written per second.
//  - BM_DayOfHistory/gpm:G: a day of the above at N = 60, then downsampling; the database's size
//    (pages in use) per GPU per day, as written, once the raw samples have aged out (48 h), once
//    the per-process minutes have (30 days) and once the device minutes have (90 days): what a
//    day costs while each tier keeps it. G = 1: every sample carries the eight GPM figures.
//  - BM_MonthlyUserReport / BM_YearByUserAndMonth / BM_IdleHoldersOfAWeek: queries over a
//    generated year of 8 GPUs shared by 50 users (jobs of 1-12 hours with 1-4 processes each),
//    the last 30 days with per-minute detail as the default retention leaves them.
// Every database lives in a fresh temporary directory.
#include <benchmark/benchmark.h>
#include <stdlib.h>  // mkdtemp: POSIX

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "store/idle.h"
#include "store/maintenance.h"
#include "store/usage.h"
#include "store/writer.h"

namespace {

using gpumeter::TimeUs;
namespace store = gpumeter::store;

constexpr TimeUs kSecond = 1'000'000;
constexpr TimeUs kMinute = 60 * kSecond;
constexpr TimeUs kHour = 60 * kMinute;
constexpr TimeUs kDay = 24 * kHour;
constexpr TimeUs kT0 = 1'767'225'600 * kSecond;  // 2026-01-01T00:00:00Z
constexpr int kGpus = 8;
constexpr int kProcesses = 64;
constexpr double kMiB = 1024.0 * 1024.0;

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "gpumeter-store-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path database() const { return path_ / "bench.db"; }

 private:
  std::filesystem::path path_;
};

std::string gpu_uuid(int gpu) {
  return "GPU-bench-" + std::to_string(gpu);
}

// With `gpm`, a Hopper GPU's sample: its eight GPM figures too (else they are absent, NULL).
store::DeviceSampleRecord sample(int gpu, TimeUs time, double joules, bool gpm = false) {
  const double load = static_cast<double>((time / kSecond + gpu * 7) % 101);
  store::DeviceSampleRecord record{.uuid = gpu_uuid(gpu),
                                   .index = static_cast<std::uint32_t>(gpu),
                                   .time_us = time,
                                   .utilization_gpu_percent = load,
                                   .utilization_memory_percent = load / 3,
                                   .memory_used_bytes = 40e9 + load * 1e8,
                                   .power_draw_watts = 100 + 5 * load,
                                   .temperature_celsius = 40 + load / 4,
                                   .energy_joules = joules};
  if (gpm) {
    record.gpm_sm_activity_percent = load * 0.97;
    record.gpm_sm_occupancy_percent = load * 0.41;
    record.gpm_tensor_activity_percent = load * 0.23;
    record.gpm_dram_bandwidth_percent = load / 3.1;
    record.gpm_pcie_tx_bytes_per_second = load * 3.7e7;
    record.gpm_pcie_rx_bytes_per_second = load * 1.3e8;
    record.gpm_nvlink_tx_bytes_per_second = load * 2.9e9;
    record.gpm_nvlink_rx_bytes_per_second = load * 1.7e9;
  }
  return record;
}

store::ProcessIdentity machine_process(int p) {
  return {.pid = static_cast<gpumeter::Pid>(10'000 + p),
          .start_time_us = kT0 - kHour,
          .gpu_uuid = gpu_uuid(p % kGpus),
          .gpu_index = static_cast<std::uint32_t>(p % kGpus),
          .uid = static_cast<std::uint32_t>(1000 + p % 16),
          .user = "user" + std::to_string(p % 16),
          .command = "python train.py --rank " + std::to_string(p)};
}

// Queues what the daemon records for [begin, begin + seconds): 1-second device samples and one
// interval per process.
void queue_interval(store::Writer& writer, TimeUs begin, int seconds, bool gpm = false) {
  for (int s = 0; s < seconds; ++s) {
    const TimeUs time = begin + s * kSecond;
    for (int gpu = 0; gpu < kGpus; ++gpu)
      (void)writer.add(sample(gpu, time, static_cast<double>(time - kT0) / kSecond * 300, gpm));
  }
  const double length = seconds;
  for (int p = 0; p < kProcesses; ++p) {
    (void)writer.add(store::ProcessInterval{.process = machine_process(p),
                                            .begin_us = begin,
                                            .end_us = begin + seconds * kSecond,
                                            .held_seconds = length,
                                            .sm_busy_seconds = length * (p % 10) / 10,
                                            .peak_memory_bytes = 4ULL << 30,
                                            .energy_joules = length * 30});
  }
}

void BM_Ingest(benchmark::State& state) {
  TempDir dir;
  auto db = store::Store::open(dir.database(), {.host = "bench"});
  if (!db) {
    state.SkipWithError(db.error().message.c_str());
    return;
  }
  store::Writer writer(*db);
  const int seconds = static_cast<int>(state.range(0));
  TimeUs begin = kT0;
  std::int64_t samples = 0;
  std::int64_t intervals = 0;
  for (auto _ : state) {
    state.PauseTiming();
    queue_interval(writer, begin, seconds);
    begin += seconds * kSecond;
    state.ResumeTiming();
    if (!writer.flush()) state.SkipWithError("flush failed");
    samples += kGpus * seconds;
    intervals += kProcesses;
  }
  using benchmark::Counter;
  state.counters["device_samples_per_s"] = Counter(static_cast<double>(samples), Counter::kIsRate);
  state.counters["ledger_upserts_per_s"] =
      Counter(static_cast<double>(intervals), Counter::kIsRate);
  state.counters["rows_per_s"] =
      Counter(static_cast<double>(samples + intervals), Counter::kIsRate);
}

// Frames in the write-ahead log now: mxFrame of the WAL index header at the start of the -shm
// file (a 32-bit native-endian integer at offset 16), as SQLite documents its file format.
std::uint32_t wal_frames(const std::filesystem::path& database) {
  std::ifstream shm(database.string() + "-shm", std::ios::binary);
  std::uint32_t frames = 0;
  shm.seekg(16);
  shm.read(reinterpret_cast<char*>(&frames), sizeof frames);
  return shm ? frames : 0;
}

// How many WAL frames each flush adds and how often the log restarts after a checkpoint: a
// power loss can take back what was committed since the last checkpoint.
struct WalWatch {
  std::uint32_t last = 0;
  std::uint64_t added = 0;
  std::uint64_t flushes = 0;
  std::uint64_t restarts = 0;

  void after_flush(const std::filesystem::path& database) {
    const std::uint32_t now = wal_frames(database);
    if (now < last) {
      ++restarts;
      added += now;
    } else {
      added += now - last;
    }
    last = now;
    ++flushes;
  }
};

double used_mib(store::Store& db) {
  const auto size = db.size();
  return size ? static_cast<double>(size->used_bytes) / kMiB : -1;
}

void BM_DayOfHistory(benchmark::State& state) {
  const bool gpm = state.range(0) != 0;
  for (auto _ : state) {
    TempDir dir;
    auto db = store::Store::open(dir.database(), {.host = "bench"});
    if (!db) {
      state.SkipWithError(db.error().message.c_str());
      return;
    }
    store::Writer writer(*db);
    WalWatch wal;
    for (TimeUs minute = kT0; minute < kT0 + kDay; minute += kMinute) {
      queue_interval(writer, minute, 60, gpm);
      if (!writer.flush()) state.SkipWithError("flush failed");
      wal.after_flush(dir.database());
      if ((minute - kT0) % kHour == 0) (void)store::maintain(*db, minute);
    }
    state.counters["wal_frames_per_flush"] =
        static_cast<double>(wal.added) / static_cast<double>(wal.flushes);
    state.counters["wal_restarts"] = static_cast<double>(wal.restarts);
    (void)store::maintain(*db, kT0 + kDay);
    (void)db->checkpoint();
    state.counters["file_MiB"] =
        static_cast<double>(std::filesystem::file_size(dir.database())) / kMiB;
    state.counters["day_MiB_per_gpu"] = used_mib(*db) / kGpus;
    (void)store::maintain(*db, kT0 + 3 * kDay);  // raw samples aged out
    state.counters["after_48h_MiB_per_gpu"] = used_mib(*db) / kGpus;
    (void)store::maintain(*db, kT0 + 32 * kDay);  // per-process minutes aged out (30 days)
    state.counters["after_30d_MiB_per_gpu"] = used_mib(*db) / kGpus;
    (void)store::maintain(*db, kT0 + 92 * kDay);  // device minutes aged out too (90 days)
    state.counters["after_90d_MiB_per_gpu"] = used_mib(*db) / kGpus;
  }
}

// A year of jobs: on each GPU one after another, each of a random user, 1-12 hours long with
// 1-4 processes, with gaps of up to two hours; recorded as hourly intervals.
bool generate_year(store::Store& db) {
  // Written after the minutes' horizon is set, as a daemon would have left them.
  if (!store::prune(db, kT0 + 365 * kDay)) return false;
  store::Writer writer(db);
  std::mt19937 random(2026);
  std::uniform_int_distribution<int> user(0, 49);
  std::uniform_int_distribution<int> hours(1, 12);
  std::uniform_int_distribution<int> processes(1, 4);
  std::uniform_int_distribution<int> gap_minutes(0, 120);
  std::uniform_int_distribution<int> sm(0, 100);
  gpumeter::Pid next_pid = 1000;
  for (int gpu = 0; gpu < kGpus; ++gpu) {
    for (TimeUs t = kT0; t < kT0 + 365 * kDay;) {
      const int u = user(random);
      const int length = hours(random);
      const int count = processes(random);
      const double busy = sm(random) / 100.0;
      for (int p = 0; p < count; ++p) {
        const store::ProcessIdentity who{.pid = next_pid++,
                                         .start_time_us = t,
                                         .gpu_uuid = gpu_uuid(gpu),
                                         .gpu_index = static_cast<std::uint32_t>(gpu),
                                         .uid = static_cast<std::uint32_t>(2000 + u),
                                         .user = "user" + std::to_string(u),
                                         .command = "python job.py"};
        for (int h = 0; h < length; ++h) {
          const TimeUs begin = t + h * kHour;
          (void)writer.add(store::ProcessInterval{.process = who,
                                                  .begin_us = begin,
                                                  .end_us = begin + kHour,
                                                  .held_seconds = 3600,
                                                  .sm_busy_seconds = 3600 * busy,
                                                  .peak_memory_bytes = 8ULL << 30,
                                                  .energy_joules = 3600 * 250 * busy,
                                                  .final = h == length - 1});
        }
      }
      if (!writer.flush()) return false;
      t += length * kHour + gap_minutes(random) * kMinute;
    }
  }
  return true;
}

// One year of history shared by the query benchmarks.
store::Store& year_of_history() {
  static TempDir dir;
  static auto db = [] {
    auto opened = store::Store::open(dir.database(), {.host = "bench"});
    if (opened && !generate_year(*opened)) std::abort();
    return opened;
  }();
  if (!db) std::abort();
  return *db;
}

// The year's size: pages in use, and ledger rows (one per process on a GPU).
void describe_year(benchmark::State& state, store::Store& db) {
  state.counters["history_MiB"] = used_mib(db);
  const auto rows = store::ledger(db, {.since_us = kT0, .until_us = kT0 + 366 * kDay});
  state.counters["ledger_rows"] = rows ? static_cast<double>(rows->size()) : -1;
}

void BM_MonthlyUserReport(benchmark::State& state) {
  store::Store& db = year_of_history();
  describe_year(state, db);
  const TimeUs june = kT0 + (31 + 28 + 31 + 30 + 31) * kDay;
  std::size_t rows = 0;
  for (auto _ : state) {
    const auto report = store::usage(
        db, {.since_us = june, .until_us = june + 30 * kDay, .group_by = {store::GroupBy::user}});
    if (!report) state.SkipWithError(report.error().message.c_str());
    rows = report ? report->size() : 0;
  }
  state.counters["rows"] = static_cast<double>(rows);
}

void BM_YearByUserAndMonth(benchmark::State& state) {
  store::Store& db = year_of_history();
  std::size_t rows = 0;
  for (auto _ : state) {
    const auto report =
        store::usage(db, {.since_us = kT0,
                          .until_us = kT0 + 365 * kDay,
                          .group_by = {store::GroupBy::user, store::GroupBy::month}});
    if (!report) state.SkipWithError(report.error().message.c_str());
    rows = report ? report->size() : 0;
  }
  state.counters["rows"] = static_cast<double>(rows);
}

void BM_IdleHoldersOfAWeek(benchmark::State& state) {
  store::Store& db = year_of_history();
  const TimeUs end = kT0 + 365 * kDay;
  std::size_t spells = 0;
  for (auto _ : state) {
    const auto found =
        store::idle_holders(db, {.since_us = end - 7 * kDay, .until_us = end, .max_sm_percent = 5});
    if (!found) state.SkipWithError(found.error().message.c_str());
    spells = found ? found->size() : 0;
  }
  state.counters["spells"] = static_cast<double>(spells);
}

BENCHMARK(BM_Ingest)
    ->ArgName("record_s")
    ->Arg(1)
    ->Arg(10)
    ->Arg(60)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
// gpm:1: every GPU a Hopper GPU whose samples carry the eight GPM figures (schema step 7).
BENCHMARK(BM_DayOfHistory)
    ->ArgName("gpm")
    ->Arg(0)
    ->Arg(1)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kSecond);
BENCHMARK(BM_MonthlyUserReport)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_YearByUserAndMonth)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_IdleHoldersOfAWeek)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
