// SPDX-License-Identifier: MIT
// Exited accounting records kept between reads (nvml/accounting_cache.h), through the real
// dlopen path against the simulated library: the records are those a source without the cache
// reads at the same moment, a reused pid gives its new record, a cleared buffer forgets the
// kept ones, and the driver is asked about far fewer pids per read. Calls are counted in the
// simulator's call log ($GPUMETER_SIM_CALL_LOG).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "nvml/accounting_cache.h"
#include "support/sim_backend.h"

namespace gpumeter::nvml::accounting_cache_sim_test {

using testing::ScopedEnv;
using testing::SimBackendTest;

constexpr std::string_view kStats = "nvmlDeviceGetAccountingStats";

// `exited` processes (pids 1000, 1001, ...) that ran one after another before t = -10, then two
// that run from t = -5 (pids 9000, 9001).
std::string many_exited(int exited) {
  std::string processes;
  for (int i = 0; i < exited; ++i) {
    processes += fmt::format(
        R"({{"device": 0, "pid": {}, "start_s": {}, "end_s": {}, "used_memory_bytes": {},
             "utilization": {{"sm": {}, "mem": 5}}}},)",
        1000 + i, -10 - 2 * (exited - i), -10 - 2 * (exited - i) + 1, (i + 1) * 1048576, i % 100);
  }
  processes += R"({"device": 0, "pid": 9000, "start_s": -5, "utilization": {"sm": 40}},
                  {"device": 0, "pid": 9001, "start_s": -5, "utilization": {"sm": 70}})";
  return fmt::format(R"({{"driver": {{"privileged": true}},
    "device_defaults": {{"name": "NVIDIA H200", "memory_total_bytes": 150754820096}},
    "devices": [{{"uuid": "GPU-cac00000-0000-4000-8000-000000000000",
                 "accounting": {{"enabled": true, "buffer_size": 4000}}}}],
    "processes": [{}]}})",
                     processes);
}

class AccountingCacheSimTest : public SimBackendTest {
 protected:
  AccountingCacheSimTest()
      : log_path_(std::filesystem::temp_directory_path() /
                  fmt::format("gpumeter-calls-{}-{}.log", ::getpid(),
                              ::testing::UnitTest::GetInstance()->current_test_info()->name())),
        log_("GPUMETER_SIM_CALL_LOG", log_path_.c_str()) {}
  ~AccountingCacheSimTest() override {
    std::error_code ignored;
    std::filesystem::remove(log_path_, ignored);
  }

  // Opens the cached source on `json` at time t, and beside it one that asks for every record.
  void open_both(const std::string& json, double t_s) {
    cached = open(json, t_s);
    uncached =
        open_nvml_source({.library_path = testing::kSimLibrary, .keep_exited_accounting = false})
            .value_or(nullptr);
    ASSERT_NE(cached, nullptr);
    ASSERT_NE(uncached, nullptr);
  }

  // GPU 0's records as `source` reads them now.
  static std::vector<AccountingRecord> records(GpuSource& source) {
    auto reading = source.read();
    EXPECT_TRUE(reading.has_value());
    if (!reading || reading->devices.empty() || !reading->devices[0].accounting ||
        !reading->devices[0].accounting->records) {
      ADD_FAILURE() << "no accounting records";
      return {};
    }
    return *reading->devices[0].accounting->records;
  }

  // The cached source's records, and how many stats calls reading them took.
  std::vector<AccountingRecord> read_cached(std::size_t& stats_calls) {
    const std::size_t before = calls(kStats);
    auto read = records(*cached);
    stats_calls = calls(kStats) - before;
    return read;
  }

  // Reads both at the current time and expects the same records.
  std::vector<AccountingRecord> expect_same_records(std::size_t& stats_calls) {
    auto with_cache = read_cached(stats_calls);
    const auto without = records(*uncached);
    expect_equal(with_cache, without);
    return with_cache;
  }

  static void expect_equal(const std::vector<AccountingRecord>& a,
                           const std::vector<AccountingRecord>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      SCOPED_TRACE(fmt::format("record {} (pid {})", i, a[i].pid));
      EXPECT_EQ(a[i].pid, b[i].pid);
      EXPECT_EQ(a[i].start_time_us, b[i].start_time_us);
      EXPECT_EQ(a[i].running, b[i].running);
      EXPECT_EQ(a[i].time_ms, b[i].time_ms);
      EXPECT_EQ(a[i].gpu_util_percent, b[i].gpu_util_percent);
      EXPECT_EQ(a[i].memory_util_percent, b[i].memory_util_percent);
      EXPECT_EQ(a[i].max_memory_bytes, b[i].max_memory_bytes);
    }
  }

  // Calls of `function` in the simulator's log so far.
  std::size_t calls(std::string_view function) const {
    std::ifstream in(log_path_);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) {
      if (line == function) ++n;
    }
    return n;
  }

  // The cached source's control (it has one: NVML sources do).
  AccountingControl& control() {
    AccountingControl* control = cached->accounting_control();
    if (control == nullptr) {
      ADD_FAILURE() << "the NVML source offers no accounting control";
      std::abort();
    }
    return *control;
  }

  std::unique_ptr<GpuSource> cached;
  std::unique_ptr<GpuSource> uncached;

 private:
  std::filesystem::path log_path_;
  ScopedEnv log_;
};

TEST_F(AccountingCacheSimTest, ManyExitedRecordsAreAskedForOnce) {
  constexpr std::size_t kExited = 1000;
  open_both(many_exited(kExited), 0);
  std::size_t stats_calls = 0;
  const auto first = expect_same_records(stats_calls);
  ASSERT_EQ(first.size(), kExited + 2);
  EXPECT_EQ(stats_calls, kExited + 2) << "the first read asks about every record";
  // Each later read asks about the two running processes and a slice of the kept records.
  const std::size_t slice = (kExited + 2 + kRecheckRounds - 1) / kRecheckRounds;
  for (double t = 1; t <= 3; ++t) {
    at(t);
    const auto read = expect_same_records(stats_calls);
    EXPECT_EQ(read.size(), kExited + 2);
    EXPECT_EQ(stats_calls, 2 + slice) << "at t = " << t;
  }
}

// pid 500 ran before; it starts again at t = 5 (buffer [..., 500, 500]), and its record is the
// new one from then on, for both entries (the driver answers for a pid with its newest).
TEST_F(AccountingCacheSimTest, AReusedPidGivesItsNewRecord) {
  open_both(R"({)"
            R"("device_defaults": {"name": "NVIDIA H200", "memory_total_bytes": 150754820096},)"
            R"("devices": [{"uuid": "GPU-cac00000-0000-4000-8000-000000000001",
                              "accounting": {"enabled": true}}],
    "processes": [
      {"device": 0, "pid": 500, "start_s": -100, "end_s": -50, "utilization": {"sm": 10}},
      {"device": 0, "pid": 501, "start_s": -40, "end_s": -30, "utilization": {"sm": 20}},
      {"device": 0, "pid": 500, "start_s": 5, "end_s": 8, "utilization": {"sm": 90}}]})",
            0);
  std::size_t stats_calls = 0;
  auto read = expect_same_records(stats_calls);
  ASSERT_EQ(read.size(), 2U);
  EXPECT_EQ(read[0].time_ms, 50'000U);
  at(1);
  read = expect_same_records(stats_calls);
  at(6);
  read = expect_same_records(stats_calls);
  ASSERT_EQ(read.size(), 3U);
  EXPECT_TRUE(read[2].running);
  EXPECT_EQ(read[2].start_time_us, kEpochUs + 5'000'000);
  EXPECT_EQ(read[0].start_time_us, read[2].start_time_us) << "the newest answers for pid 500";
  at(10);
  read = expect_same_records(stats_calls);
  ASSERT_EQ(read.size(), 3U);
  EXPECT_EQ(read[2].time_ms, 3000U);
  EXPECT_EQ(read[2].gpu_util_percent, 90.0);
}

// A buffer of 3, full of exited processes 1, 2, 3; at t = 5 pid 1 starts again, the driver
// drops the old 1 and lists [2, 3, 1]: the kept record of the old 1 must not answer for it.
TEST_F(AccountingCacheSimTest, APidReusedAsTheBufferWrapsIsAskedAbout) {
  open_both(R"({)"
            R"("device_defaults": {"name": "NVIDIA H200", "memory_total_bytes": 150754820096},)"
            R"("devices": [{"uuid": "GPU-cac00000-0000-4000-8000-000000000002",
                              "accounting": {"enabled": true, "buffer_size": 3}}],
    "processes": [
      {"device": 0, "pid": 1, "start_s": -30, "end_s": -25, "utilization": {"sm": 10}},
      {"device": 0, "pid": 2, "start_s": -20, "end_s": -15, "utilization": {"sm": 20}},
      {"device": 0, "pid": 3, "start_s": -10, "end_s": -5, "utilization": {"sm": 30}},
      {"device": 0, "pid": 1, "start_s": 5, "end_s": 7, "utilization": {"sm": 80}}]})",
            0);
  std::size_t stats_calls = 0;
  expect_same_records(stats_calls);
  at(6);
  auto read = expect_same_records(stats_calls);
  ASSERT_EQ(read.size(), 3U);
  EXPECT_EQ(read[2].pid, 1U);
  EXPECT_TRUE(read[2].running);
  EXPECT_EQ(read[2].start_time_us, kEpochUs + 5'000'000);
  at(8);
  read = expect_same_records(stats_calls);
  EXPECT_EQ(read[2].time_ms, 2000U);
}

// A clear drops the exited records; the kept ones go too: a pid listed again after the clear
// is asked about, and gives the record of its new process.
TEST_F(AccountingCacheSimTest, AClearedBufferDropsTheKeptRecords) {
  open_both(R"({"driver": {"privileged": true},
    "device_defaults": {"name": "NVIDIA H200", "memory_total_bytes": 150754820096},
    "devices": [{"uuid": "GPU-cac00000-0000-4000-8000-000000000003",
                 "accounting": {"enabled": true}}],
    "processes": [
      {"device": 0, "pid": 70, "start_s": -60, "end_s": -10, "utilization": {"sm": 30}},
      {"device": 0, "pid": 71, "start_s": -5, "utilization": {"sm": 40}},
      {"device": 0, "pid": 70, "start_s": 5, "end_s": 6, "utilization": {"sm": 90}}]})",
            0);
  std::size_t stats_calls = 0;
  auto read = expect_same_records(stats_calls);
  ASSERT_EQ(read.size(), 2U);
  at(1);
  expect_same_records(stats_calls);
  EXPECT_EQ(stats_calls, 2U) << "the running 71 and a one-record recheck slice";
  ASSERT_TRUE(control().clear_accounting(0).has_value());
  read = expect_same_records(stats_calls);
  ASSERT_EQ(read.size(), 1U);
  EXPECT_EQ(read[0].pid, 71U);
  at(7);
  read = expect_same_records(stats_calls);
  ASSERT_EQ(read.size(), 2U);
  EXPECT_EQ(read[1].pid, 70U);
  EXPECT_EQ(read[1].start_time_us, kEpochUs + 5'000'000);
  EXPECT_EQ(read[1].time_ms, 1000U);
}

// The one case the pid list cannot show: pid 70's record is cleared and 70 starts again in the
// same interval, at the same place in the list. The recheck finds the new record within
// kRecheckRounds reads.
TEST_F(AccountingCacheSimTest, AClearAndAReuseInOneIntervalAreFoundByTheRecheck) {
  open_both(R"({"driver": {"privileged": true},
    "device_defaults": {"name": "NVIDIA H200", "memory_total_bytes": 150754820096},
    "devices": [{"uuid": "GPU-cac00000-0000-4000-8000-000000000004",
                 "accounting": {"enabled": true}}],
    "processes": [
      {"device": 0, "pid": 71, "start_s": -60, "utilization": {"sm": 40}},
      {"device": 0, "pid": 70, "start_s": -30, "end_s": -10, "utilization": {"sm": 30}},
      {"device": 0, "pid": 70, "start_s": 5, "end_s": 6, "utilization": {"sm": 90}}]})",
            0);
  std::size_t stats_calls = 0;
  expect_same_records(stats_calls);
  ASSERT_TRUE(control().clear_accounting(0).has_value());
  at(7);
  const auto truth = records(*uncached);
  ASSERT_EQ(truth.size(), 2U);
  ASSERT_EQ(truth[1].start_time_us, kEpochUs + 5'000'000);
  std::size_t reads = 0;
  for (; reads < kRecheckRounds; ++reads) {
    if (read_cached(stats_calls).back().start_time_us == truth[1].start_time_us) break;
  }
  EXPECT_LT(reads, kRecheckRounds);
  expect_equal(read_cached(stats_calls), truth);
}

// Turning the mode off and on again starts an empty buffer, and the kept records go with it.
TEST_F(AccountingCacheSimTest, DisablingForgetsTheKeptRecords) {
  open_both(many_exited(10), 0);
  std::size_t stats_calls = 0;
  expect_same_records(stats_calls);
  ASSERT_TRUE(control().set_accounting_mode(0, false).has_value());
  EXPECT_FALSE(cached->read()->devices[0].accounting->records.has_value());
  ASSERT_TRUE(control().set_accounting_mode(0, true).has_value());
  EXPECT_TRUE(expect_same_records(stats_calls).empty());
}

TEST(AppendedFrom, FindsWhereTheNewEntriesStart) {
  using V = std::vector<unsigned>;
  EXPECT_EQ(appended_from(V{}, V{1, 2}), 0U);
  EXPECT_EQ(appended_from(V{1, 2}, V{1, 2}), 2U);
  EXPECT_EQ(appended_from(V{1, 2}, V{1, 2, 3}), 2U);
  EXPECT_EQ(appended_from(V{1, 2, 3}, V{2, 3, 1}), 2U) << "1 wrapped out and came back";
  EXPECT_EQ(appended_from(V{1, 2, 3}, V{3, 4}), 1U);
  EXPECT_EQ(appended_from(V{1, 2, 3}, V{1, 3}), 0U) << "2 removed from the middle: a clear";
  EXPECT_EQ(appended_from(V{1, 2}, V{}), 0U);
  EXPECT_EQ(appended_from(V{5, 5}, V{5, 5, 5}), 2U);
}

}  // namespace gpumeter::nvml::accounting_cache_sim_test
