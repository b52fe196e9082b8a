// SPDX-License-Identifier: MIT
#include "host/self_usage.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "support/temp_dir.h"

namespace gpumeter::host::self_usage_test {

using gpumeter::testing::TempDir;

// Fields 1..24 of a stat line: utime 1500 and stime 300 ticks, start 123456 ticks after boot,
// 9876543210 bytes of address space, 25600 resident pages.
constexpr const char* kStat =
    "4242 (gpumeter) S 1 4242 4242 0 -1 4194560 52000 0 120 0 1500 300 0 0 20 0 8 0 123456 "
    "9876543210 25600 18446744073709551615\n";

TEST(SelfUsageReader, ReadsTheFiguresOfAProcfsTree) {
  const TempDir root;
  root.write("proc/stat", "cpu 1 2 3\nbtime 1700000000\n");
  root.write("proc/4242/stat", kStat);
  root.write("proc/4242/limits",
             "Limit                     Soft Limit           Hard Limit           Units\n"
             "Max open files            4096                 524288               files\n");
  for (const char* fd : {"0", "1", "2", "7"}) root.write(std::string("proc/4242/fd/") + fd, "");
  SelfUsageReader reader(root.path(), 4242);
  const SelfUsage usage = reader.read();
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  ASSERT_TRUE(usage.cpu_seconds && usage.start_time_s);
  EXPECT_NEAR(*usage.cpu_seconds, 1800 / ticks, 1e-6);
  EXPECT_NEAR(*usage.start_time_s, 1700000000 + 123456 / ticks, 1e-6);
  EXPECT_EQ(usage.resident_bytes, 25600 * page);
  EXPECT_EQ(usage.virtual_bytes, 9876543210U);
  EXPECT_EQ(usage.open_descriptors, 4U);
  EXPECT_EQ(usage.max_descriptors, 4096U);
  // The heap and SQLite are the caller's to add.
  EXPECT_FALSE(usage.heap_in_use_bytes);
  EXPECT_FALSE(usage.sqlite_memory_bytes);
}

TEST(SelfUsageReader, FilesThatCannotBeReadLeaveTheirFiguresAbsent) {
  const TempDir root;
  root.write("proc/4242/stat", "4242 (gpumeter) S 1 2\n");  // truncated
  SelfUsageReader reader(root.path(), 4242);
  const SelfUsage usage = reader.read();
  EXPECT_FALSE(usage.cpu_seconds);
  EXPECT_FALSE(usage.resident_bytes);
  EXPECT_FALSE(usage.start_time_s);
  EXPECT_FALSE(usage.open_descriptors);
  EXPECT_FALSE(usage.max_descriptors);
}

// The live process: the figures move as the process does.
TEST(SelfUsageReader, FollowsTheLiveProcess) {
  SelfUsageReader reader("/", static_cast<Pid>(::getpid()));
  const SelfUsage before = reader.read();
  ASSERT_TRUE(before.open_descriptors && before.resident_bytes && before.max_descriptors);
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
  EXPECT_EQ(*before.max_descriptors, limit.rlim_cur);

  const int opened = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(opened, 0);
  // 64 MiB touched page by page: resident, and in use on the heap.
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  auto block = std::make_unique<char[]>(kBytes);
  for (std::size_t i = 0; i < kBytes; i += 4096) block[i] = 1;
  SelfUsage during = reader.read();
  add_heap_usage(during);
  EXPECT_EQ(*during.open_descriptors, *before.open_descriptors + 1);
  EXPECT_GE(*during.resident_bytes, *before.resident_bytes + kBytes / 2);
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  ASSERT_TRUE(during.heap_in_use_bytes && during.heap_free_bytes);
  EXPECT_GE(*during.heap_in_use_bytes, kBytes);
#else
  // Under a sanitizer (its own malloc) or another libc the heap figures are absent, never zero.
  EXPECT_FALSE(during.heap_in_use_bytes);
  EXPECT_FALSE(during.heap_free_bytes);
#endif
  EXPECT_EQ(block[4096], 1);  // keeps the block from being optimised away
  ::close(opened);
  EXPECT_EQ(*reader.read().open_descriptors, *before.open_descriptors);
}

}  // namespace gpumeter::host::self_usage_test
