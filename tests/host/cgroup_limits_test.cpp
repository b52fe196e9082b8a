// SPDX-License-Identifier: MIT
#include "host/cgroup_limits.h"

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace gpumeter::host::cgroup_limits_test {

using gpumeter::testing::TempDir;

TEST(QuotaForCpus, IsTheNumberOfCpusTimesThePeriodOverAllCpus) {
  EXPECT_EQ(quota_for_cpus("1.5", 16), (CpuQuota{150'000, 100'000}));
  EXPECT_EQ(quota_for_cpus("1", 16), (CpuQuota{100'000, 100'000}));
  EXPECT_EQ(quota_for_cpus("16", 16), (CpuQuota{1'600'000, 100'000}));
  EXPECT_EQ(quota_for_cpus("0.01", 1), (CpuQuota{1'000, 100'000}));
  EXPECT_EQ(quota_for_cpus(".25", 4), (CpuQuota{25'000, 100'000}));
}

TEST(QuotaForCpus, RefusesWhatIsNotAPlainCountWithinTheMachine) {
  for (const char* bad : {"", "0", "-1", "1e3", "inf", "nan", "1.5.2", "two", "1,5", ".", " 1"}) {
    const auto quota = quota_for_cpus(bad, 16);
    ASSERT_FALSE(quota.has_value()) << bad;
    EXPECT_NE(quota.error().find("is not a positive number of CPUs"), std::string::npos)
        << quota.error();
  }
  EXPECT_EQ(quota_for_cpus("17", 16).error(), "17 CPUs is more than the 16 online");
  EXPECT_NE(quota_for_cpus("0.001", 16).error().find("shortest quota"), std::string::npos);
}

// The classic mistake is to read cpu.max as per CPU; --cpu-percent is the per-CPU form and
// multiplies by the CPUs online.
TEST(QuotaForCpuPercent, IsAPercentageOfEachCore) {
  EXPECT_EQ(quota_for_cpu_percent("50", 16), (CpuQuota{800'000, 100'000}));
  EXPECT_EQ(quota_for_cpu_percent("50", 1), (CpuQuota{50'000, 100'000}));
  EXPECT_EQ(quota_for_cpu_percent("100", 4), (CpuQuota{400'000, 100'000}));
  EXPECT_EQ(quota_for_cpu_percent("12.5", 2), (CpuQuota{25'000, 100'000}));
}

TEST(QuotaForCpuPercent, RefusesPercentagesOutsideZeroToAHundred) {
  for (const char* bad : {"0", "100.5", "150", "-5", "50%", "abc"}) {
    const auto quota = quota_for_cpu_percent(bad, 8);
    ASSERT_FALSE(quota.has_value()) << bad;
    EXPECT_NE(quota.error().find("not a percentage of each CPU"), std::string::npos);
  }
  EXPECT_NE(quota_for_cpu_percent("0.5", 1).error().find("shortest quota"), std::string::npos);
}

TEST(CpuList, ParsesAndFormatsTheKernelsForm) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<unsigned>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("5,1,1-2"), (std::vector<unsigned>{1, 2, 5}));
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_cpu_list({4}), "4");
  EXPECT_EQ(format_cpu_list({}), "");
  for (const char* bad : {"", "3-1", "0-", "-3", "a", "1,,2", "1;2", "0-99999999"}) {
    EXPECT_FALSE(parse_cpu_list(bad).has_value()) << bad;
  }
}

TEST(CpusetWithin, AcceptsOnlineCpusAndNamesTheOthers) {
  const std::vector<unsigned> online{0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(cpuset_within("0-3", online), "0-3");
  EXPECT_EQ(cpuset_within("3,1,2", online), "1-3");
  EXPECT_EQ(cpuset_within("6-9,12", online).error(), "CPU 8-9,12 not online (online: 0-7)");
  EXPECT_EQ(cpuset_within("x", online).error(), "\"x\" is not a CPU list such as 0-3,8");
}

TEST(MemorySize, SuffixesArePowersOf1024) {
  EXPECT_EQ(parse_memory_size("4G"), 4ULL << 30);
  EXPECT_EQ(parse_memory_size("512M"), 512ULL << 20);
  EXPECT_EQ(parse_memory_size("512MiB"), 512ULL << 20);
  EXPECT_EQ(parse_memory_size("1.5g"), 3ULL << 29);
  EXPECT_EQ(parse_memory_size("2T"), 2ULL << 40);
  EXPECT_EQ(parse_memory_size("64k"), 64ULL << 10);
  EXPECT_EQ(parse_memory_size("1000"), 1000U);
  EXPECT_EQ(parse_memory_size("1000B"), 1000U);
}

TEST(MemorySize, RefusesOtherForms) {
  for (const char* bad : {"", "G", "4X", "4GB", "-1G", "4 G", "1e9", "4G4"}) {
    const auto size = parse_memory_size(bad);
    ASSERT_FALSE(size.has_value()) << bad;
    EXPECT_NE(size.error().find("is not a size"), std::string::npos) << size.error();
  }
  EXPECT_EQ(parse_memory_size("0M").error(), "\"0M\" is zero bytes");
  EXPECT_EQ(parse_memory_size("9000000T").error(), "\"9000000T\" is more than 8 EiB");
}

TEST(OnlineCpus, ReadsTheKernelsListUnderTheRoot) {
  const TempDir root;
  root.write("sys/devices/system/cpu/online", "0-5,8\n");
  EXPECT_EQ(online_cpus(root.path()), (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 8}));
  const auto missing = online_cpus(root.path() / "nowhere");
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().find("sys/devices/system/cpu/online: No such file"), std::string::npos)
      << missing.error();
}

}  // namespace gpumeter::host::cgroup_limits_test
