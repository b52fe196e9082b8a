// SPDX-License-Identifier: MIT
#include "host/cgroup_layout.h"

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace gpumeter::host::cgroup_layout_test {

using gpumeter::testing::TempDir;

// A systemd machine on cgroup v2 alone.
constexpr const char* kUnifiedMounts =
    "22 27 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
    "25 23 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
    "rw,nsdelegate,memory_recursiveprot\n"
    "27 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n";
constexpr const char* kUnifiedSelf = "0::/user.slice/user-1000.slice/session-3.scope\n";

TEST(CgroupLayout, UnifiedOnly) {
  const CgroupLayout layout = parse_cgroup_layout("/", kUnifiedMounts, kUnifiedSelf);
  EXPECT_EQ(layout.unified, "/sys/fs/cgroup/user.slice/user-1000.slice/session-3.scope");
  EXPECT_TRUE(layout.v1.empty());
}

// A hybrid machine: v1 controllers, an empty unified hierarchy beside them.
constexpr const char* kHybridMounts =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,xattr,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
constexpr const char* kHybridSelf =
    "9:name=systemd:/\n4:memory:/process_api/94be19\n3:cpuset:/\n1:cpu:/\n0::/\n";

TEST(CgroupLayout, HybridKeepsBoth) {
  const CgroupLayout layout = parse_cgroup_layout("/", kHybridMounts, kHybridSelf);
  EXPECT_EQ(layout.unified, "/sys/fs/cgroup/unified");
  EXPECT_EQ(layout.v1.at("cpu"), "/sys/fs/cgroup/cpu");
  EXPECT_EQ(layout.v1.at("cpuset"), "/sys/fs/cgroup/cpuset");
  EXPECT_EQ(layout.v1.at("memory"), "/sys/fs/cgroup/memory/process_api/94be19");
  EXPECT_EQ(layout.v1.count("name=systemd"), 1U) << "a named hierarchy is kept under its name";
  EXPECT_EQ(layout.v1.size(), 4U);
}

// An older Jetson kernel: v1 only, cpu and cpuacct mounted together.
constexpr const char* kV1Mounts =
    "24 17 0:20 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755\n"
    "28 24 0:24 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:11 - cgroup cgroup rw,cpu,cpuacct\n"
    "29 24 0:25 / /sys/fs/cgroup/memory rw,nosuid shared:12 - cgroup cgroup rw,memory\n";
constexpr const char* kV1Self = "5:memory:/user.slice\n3:cpu,cpuacct:/user.slice\n";

TEST(CgroupLayout, CoMountedControllersShareADirectoryUnderTheRoot) {
  const CgroupLayout layout = parse_cgroup_layout("/tmp/fake", kV1Mounts, kV1Self);
  EXPECT_FALSE(layout.unified.has_value());
  EXPECT_EQ(layout.v1.at("cpu"), "/tmp/fake/sys/fs/cgroup/cpu,cpuacct/user.slice");
  EXPECT_EQ(layout.v1.at("cpuacct"), "/tmp/fake/sys/fs/cgroup/cpu,cpuacct/user.slice");
  EXPECT_EQ(layout.v1.at("memory"), "/tmp/fake/sys/fs/cgroup/memory/user.slice");
  EXPECT_FALSE(layout.v1.contains("cpuset"));
}

// A container that mounts only its own part of the hierarchy; an escaped mount point.
TEST(CgroupLayout, AMountOfPartOfTheHierarchy) {
  const char* mounts =
      "800 790 0:23 /docker/4f1c /sys/fs/cgroup ro,nosuid - cgroup2 cgroup rw\n"
      "801 790 0:30 /kubepods /mnt/my\\040cgroups rw - cgroup cgroup rw,memory\n";
  const CgroupLayout layout =
      parse_cgroup_layout("/", mounts, "0::/docker/4f1c/job\n7:memory:/kubepods/pod1\n");
  EXPECT_EQ(layout.unified, "/sys/fs/cgroup/job");
  EXPECT_EQ(layout.v1.at("memory"), "/mnt/my cgroups/pod1");
}

TEST(CgroupLayout, OurCgroupOutsideTheMountIsLeftOut) {
  const char* mounts = "800 790 0:23 /docker/4f1c /sys/fs/cgroup rw - cgroup2 cgroup rw\n";
  EXPECT_FALSE(parse_cgroup_layout("/", mounts, "0::/docker/4f1cX\n").unified.has_value());
  EXPECT_FALSE(parse_cgroup_layout("/", mounts, "").unified.has_value());
  EXPECT_FALSE(parse_cgroup_layout("/", "garbage\n", kUnifiedSelf).unified.has_value());
}

TEST(CgroupLayout, ReadsTheProcessesOwnFilesUnderTheRoot) {
  const TempDir root;
  root.write("proc/self/mountinfo", kUnifiedMounts);
  root.write("proc/self/cgroup", kUnifiedSelf);
  const auto layout = read_cgroup_layout(root.path());
  ASSERT_TRUE(layout.has_value()) << layout.error();
  EXPECT_EQ(layout->unified,
            root.path() / "sys/fs/cgroup/user.slice/user-1000.slice/session-3.scope");
  const auto missing = read_cgroup_layout(root.path() / "nowhere");
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().find("proc/self/mountinfo: No such file"), std::string::npos);
}

}  // namespace gpumeter::host::cgroup_layout_test
