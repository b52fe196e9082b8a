// SPDX-License-Identifier: MIT
#include "host/proc_parse.h"

#include <gtest/gtest.h>

#include <string>

namespace gpumeter::host::proc_parse_test {

// A real-world line (fields 1..52) with a given comm; utime 1500, stime 300, start 123456,
// rss 25600 pages.
std::string stat_line(const std::string& comm) {
  return "4242 (" + comm +
         ") S 1 4242 4242 0 -1 4194560 52000 0 120 0 1500 300 0 0 20 0 8 0 123456 9876543210 "
         "25600 18446744073709551615 1 1 0 0 0 0 0 16781312 17642 0 0 0 17 3 0 0 0 0 0 0 0 0 0 "
         "0 0 0 0\n";
}

TEST(ParseStat, ReadsTheFieldsByNumber) {
  auto stat = parse_stat(stat_line("python3"));
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->pid, 4242U);
  EXPECT_EQ(stat->comm, "python3");
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->parent_pid, 1U);
  EXPECT_EQ(stat->utime_ticks, 1500U);
  EXPECT_EQ(stat->stime_ticks, 300U);
  EXPECT_EQ(stat->start_ticks, 123456U);
  EXPECT_EQ(stat->vsize_bytes, 9876543210U);
  EXPECT_EQ(stat->rss_pages, 25600);
}

TEST(ParseStat, CommMayHoldSpacesAndParentheses) {
  auto stat = parse_stat(stat_line("a) S 1 (b c)"));
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->comm, "a) S 1 (b c)");
  EXPECT_EQ(stat->start_ticks, 123456U);
}

TEST(ParseStat, EmptyCommAndNoTrailingNewline) {
  std::string line = stat_line("");
  line.pop_back();
  auto stat = parse_stat(line);
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->comm, "");
  EXPECT_EQ(stat->rss_pages, 25600);
}

TEST(ParseStat, RejectsMalformedText) {
  EXPECT_FALSE(parse_stat(""));
  EXPECT_FALSE(parse_stat("4242 python3 S 1"));
  EXPECT_FALSE(parse_stat("(python3) S 1 2 3"));
  EXPECT_FALSE(parse_stat("x42 (python3) S 1 2 3"));
  EXPECT_FALSE(parse_stat("4242 (python3) S 1 4242 4242 0 -1"));  // truncated
  std::string bad_start = stat_line("p");
  bad_start.replace(bad_start.find("123456"), 6, "12x456");
  EXPECT_FALSE(parse_stat(bad_start));
  std::string bad_state = stat_line("p");
  bad_state.replace(bad_state.find(") S "), 4, ") SS ");
  EXPECT_FALSE(parse_stat(bad_state));
}

constexpr const char* kStatus =
    "Name:\tpython3\nUmask:\t0022\nState:\tS (sleeping)\nPid:\t4242\n"
    "Uid:\t1000\t1001\t1002\t1003\nGid:\t1000\t1000\t1000\t1000\n"
    "NStgid:\t4242\t7\nNSpid:\t4242\t7\nVmPeak:\t  999 kB\nVmHWM:\t  204800 kB\n"
    "VmRSS:\t  102400 kB\nThreads:\t8\n";

TEST(ParseStatus, ReadsRealUidNamespacePidsAndMemory) {
  ProcStatus status = parse_status(kStatus);
  EXPECT_EQ(status.real_uid, 1000U);
  EXPECT_EQ(status.namespace_pids, (std::vector<Pid>{4242, 7}));
  EXPECT_EQ(status.rss_kib, 102400U);
  EXPECT_EQ(status.peak_rss_kib, 204800U);
  EXPECT_EQ(innermost_pid(status, 4242), 7U);
}

TEST(ParseStatus, KernelThreadHasNoMemoryAndOneNamespace) {
  ProcStatus status = parse_status("Name:\tkthreadd\nUid:\t0\t0\t0\t0\nNSpid:\t2\n");
  EXPECT_EQ(status.real_uid, 0U);
  EXPECT_FALSE(status.rss_kib);
  EXPECT_FALSE(status.peak_rss_kib);
  EXPECT_FALSE(innermost_pid(status, 2));
}

TEST(ParseStatus, MalformedLinesLeaveTheirFieldAbsent) {
  ProcStatus status = parse_status("Uid:\tx\nNSpid:\t5\tq\nVmRSS:\t12 MB\n");
  EXPECT_FALSE(status.real_uid);
  EXPECT_TRUE(status.namespace_pids.empty());
  EXPECT_FALSE(status.rss_kib);
  EXPECT_FALSE(parse_status("").real_uid);
}

TEST(ParseStatusMemory, AgreesWithTheWholeParse) {
  const ProcMemory memory = parse_status_memory(kStatus);
  const ProcStatus status = parse_status(kStatus);
  EXPECT_EQ(memory.rss_kib, 102400U);
  EXPECT_EQ(memory.peak_rss_kib, 204800U);
  EXPECT_EQ(memory.rss_kib, status.rss_kib);
  EXPECT_EQ(memory.peak_rss_kib, status.peak_rss_kib);
}

TEST(ParseStatusMemory, TakesOnlyKeysAtTheStartOfALine) {
  // A process may name itself "VmRSS: 1 kB", and Name: shows it (a newline in it is escaped).
  const ProcMemory memory =
      parse_status_memory("Name:\tVmRSS: 1 kB VmHWM: 9 kB\nVmRSS:\t7 kB\nVmHWM:\t8 kB");
  EXPECT_EQ(memory.rss_kib, 7U);
  EXPECT_EQ(memory.peak_rss_kib, 8U);
}

TEST(ParseStatusMemory, MissingOrMalformedLinesAreAbsent) {
  const ProcMemory kernel_thread = parse_status_memory("Name:\tkthreadd\nUid:\t0\t0\t0\t0\n");
  EXPECT_FALSE(kernel_thread.rss_kib);
  EXPECT_FALSE(kernel_thread.peak_rss_kib);
  const ProcMemory malformed = parse_status_memory("VmHWM:\t12 MB\nVmRSS:\t5 kB 6\n");
  EXPECT_FALSE(malformed.rss_kib);
  EXPECT_FALSE(malformed.peak_rss_kib);
  EXPECT_FALSE(parse_status_memory("").rss_kib);
}

TEST(ParseCmdline, SplitsAtNuls) {
  using namespace std::string_literals;
  EXPECT_EQ(parse_cmdline("python3\0-u\0train.py\0"s),
            (std::vector<std::string>{"python3", "-u", "train.py"}));
}

TEST(ParseCmdline, AcceptsAMissingTrailingNulAndEmptyArguments) {
  using namespace std::string_literals;
  EXPECT_EQ(parse_cmdline("a.out\0\0--x"s), (std::vector<std::string>{"a.out", "", "--x"}));
  EXPECT_EQ(parse_cmdline("nginx: worker process"),
            (std::vector<std::string>{"nginx: worker process"}));
}

TEST(ParseCmdline, EmptyForKernelThreads) {
  EXPECT_TRUE(parse_cmdline("").empty());
}

TEST(ParseBootTime, FindsTheBtimeLine) {
  EXPECT_EQ(parse_boot_time("cpu  1 2 3\nintr 5 6\nbtime 1700000000\nprocesses 9\n"), 1700000000);
  EXPECT_EQ(parse_boot_time("btime 42"), 42);
  EXPECT_FALSE(parse_boot_time("cpu 1 2 3\n"));
  EXPECT_FALSE(parse_boot_time("btime soon\n"));
}

// /proc/<pid>/limits as Linux writes it: a header, then columns padded with spaces.
constexpr const char* kLimits =
    "Limit                     Soft Limit           Hard Limit           Units     \n"
    "Max cpu time              unlimited            unlimited            seconds   \n"
    "Max open files            1024                 524288               files     \n"
    "Max locked memory         8388608              8388608              bytes     \n";

TEST(ParseOpenFilesLimit, TakesTheSoftLimit) {
  EXPECT_EQ(parse_open_files_limit(kLimits), 1024U);
}

TEST(ParseOpenFilesLimit, MissingUnlimitedOrMalformedIsAbsent) {
  EXPECT_FALSE(parse_open_files_limit("Limit Soft Limit Hard Limit Units\n"));
  EXPECT_FALSE(parse_open_files_limit("Max open files unlimited unlimited files\n"));
  EXPECT_FALSE(parse_open_files_limit("Max open files 1024 files\n"));
  EXPECT_FALSE(parse_open_files_limit("Max open files 1024 4096 bytes\n"));
}

TEST(Ticks, ConvertToMicroseconds) {
  EXPECT_EQ(ticks_to_us(150, 100), 1'500'000);
  EXPECT_EQ(ticks_to_us(1, 1024), 976);
  EXPECT_EQ(ticks_since_boot_to_epoch_us(1'700'000'000, 123456, 100),
            1'700'000'000'000'000 + 1'234'560'000);
  // A year of ticks at 100 Hz does not overflow.
  EXPECT_EQ(ticks_to_us(3'153'600'000ULL, 100), 31'536'000'000'000);
}

}  // namespace gpumeter::host::proc_parse_test
