// SPDX-License-Identifier: MIT
// Making, filling and removing the group of one `gpumeter run`, on a temporary directory laid
// out like cgroup v2 and v1, through an emulation of the kernel's rules (emulated_cgroup_fs.h).
#include "host/run_cgroup.h"

#include <gtest/gtest.h>

#include "support/emulated_cgroup_fs.h"
#include "support/temp_dir.h"

namespace gpumeter::host::run_cgroup_test {

using gpumeter::testing::TempDir;
using testing::EmulatedCgroupFs;
namespace fs = std::filesystem;

constexpr Pid kSelf = 4242;
constexpr Pid kChild = 777;

Limits all_limits() {
  return Limits{.cpu = CpuQuota{150'000, 100'000}, .cpuset = "0-1", .memory_bytes = 4ULL << 30};
}

CgroupRequest request(Limits limits) {
  return CgroupRequest{.name = "gpumeter-run-1", .limits = std::move(limits), .self = kSelf};
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// cgroup v2: a root that enables cpu, cpuset and memory below it, and our group, a systemd
// scope delegated to us, in which we are alone.
class V2 : public ::testing::Test {
 protected:
  void SetUp() override {
    cgroupfs.add_v2_root(root, {"cpuset", "cpu", "io", "memory", "pids"},
                         {"cpuset", "cpu", "memory", "pids"});
    ASSERT_TRUE(cgroupfs.make_directory(scope).has_value());
    cgroupfs.place(scope, std::to_string(kSelf));
    layout.unified = scope;
  }

  std::string get(const fs::path& file) const { return EmulatedCgroupFs::get(file); }

  TempDir temp;
  fs::path root = temp.path() / "sys/fs/cgroup";
  fs::path scope = root / "run-u7.scope";
  fs::path group = scope / "gpumeter-run-1";
  fs::path supervisor = scope / "gpumeter-run-1-supervisor";
  EmulatedCgroupFs cgroupfs;
  CgroupLayout layout;
};

TEST_F(V2, LimitsInAGroupOfOurOwnMoveUsIntoALeafAndBackAtTheEnd) {
  auto created = create_run_cgroup(cgroupfs, layout, request(all_limits()));
  ASSERT_TRUE(created.has_value()) << created.error();
  RunCgroup& cgroup = **created;
  EXPECT_EQ(cgroup.version(), CgroupVersion::v2);
  EXPECT_EQ(cgroup.path(), group);
  EXPECT_EQ(get(supervisor / "cgroup.procs"), "4242\n");
  EXPECT_EQ(get(scope / "cgroup.procs"), "");
  EXPECT_EQ(EmulatedCgroupFs::words(get(scope / "cgroup.subtree_control")),
            (EmulatedCgroupFs::Words{"cpu", "cpuset", "memory"}));
  EXPECT_EQ(get(group / "cpu.max"), "150000 100000\n");
  EXPECT_EQ(get(group / "cpuset.cpus"), "0-1\n");
  EXPECT_EQ(get(group / "memory.max"), "4294967296\n");

  ASSERT_TRUE(cgroup.add(kChild).has_value());
  EXPECT_EQ(get(group / "cgroup.procs"), "777\n");
  EmulatedCgroupFs::put(group / "memory.peak", "123456789\n");
  EXPECT_EQ(cgroup.memory_peak_bytes(), 123456789U);

  EmulatedCgroupFs::put(group / "cgroup.procs", "");  // the command exited
  ASSERT_TRUE(cgroup.remove().has_value());
  EXPECT_FALSE(fs::exists(group));
  EXPECT_FALSE(fs::exists(supervisor));
  EXPECT_EQ(get(scope / "cgroup.procs"), "4242\n");
  EXPECT_EQ(get(scope / "cgroup.subtree_control"), "\n");
  EXPECT_TRUE(cgroup.remove().has_value()) << "idempotent";
}

TEST_F(V2, ControllersAlreadyEnabledNeedNoMove) {
  EmulatedCgroupFs::put(scope / "cgroup.procs", "");
  ASSERT_TRUE(cgroupfs.write(scope / "cgroup.subtree_control", "+cpu +memory").has_value());
  auto created = create_run_cgroup(cgroupfs, layout, request({.cpu = CpuQuota{50'000, 100'000}}));
  ASSERT_TRUE(created.has_value()) << created.error();
  EXPECT_FALSE(fs::exists(supervisor));
  EXPECT_EQ(get(group / "cpu.max"), "50000 100000\n");
}

TEST_F(V2, AGroupSharedWithOtherProcessesCannotBeDividedAndIsLeftAsItWas) {
  cgroupfs.place(scope, "999");
  auto created = create_run_cgroup(cgroupfs, layout, request(all_limits()));
  ASSERT_FALSE(created.has_value());
  EXPECT_TRUE(contains(created.error(), "cgroup.subtree_control: Device or resource busy"))
      << created.error();
  EXPECT_TRUE(contains(created.error(), "other processes live in that group")) << created.error();
  EXPECT_FALSE(fs::exists(supervisor));
  EXPECT_FALSE(fs::exists(group));
  EXPECT_EQ(EmulatedCgroupFs::words(get(scope / "cgroup.procs")),
            (EmulatedCgroupFs::Words{"999", "4242"}));
}

TEST_F(V2, ControllersNotDelegatedAreNamed) {
  EmulatedCgroupFs::put(scope / "cgroup.controllers", "memory pids\n");
  auto created = create_run_cgroup(cgroupfs, layout, request(all_limits()));
  ASSERT_FALSE(created.has_value());
  EXPECT_EQ(created.error(), "cgroup v2 does not offer the cpu, cpuset controllers to " +
                                 scope.string() + " (cgroup.controllers)");
}

TEST_F(V2, APermissionRefusedIsReported) {
  EmulatedCgroupFs::put(scope / "cgroup.procs", "");
  cgroupfs.deny(scope, std::errc::permission_denied);
  auto created = create_run_cgroup(cgroupfs, layout, request({.memory_bytes = 1ULL << 30}));
  ASSERT_FALSE(created.has_value());
  EXPECT_TRUE(contains(created.error(), "cgroup.subtree_control: Permission denied"))
      << created.error();
}

TEST_F(V2, AReadOnlyFileSystemIsReported) {
  cgroupfs.deny(root, std::errc::read_only_file_system);
  auto created = create_run_cgroup(cgroupfs, layout, request({.cpuset = "0"}));
  ASSERT_FALSE(created.has_value());
  EXPECT_TRUE(contains(created.error(), "Read-only file system")) << created.error();
}

TEST_F(V2, WithoutLimitsNothingOutsideTheNewGroupChanges) {
  auto created = create_run_cgroup(cgroupfs, layout, request({}));
  ASSERT_TRUE(created.has_value()) << created.error();
  RunCgroup& cgroup = **created;
  EXPECT_EQ(cgroup.path(), group);
  EXPECT_FALSE(fs::exists(supervisor));
  EXPECT_EQ(get(scope / "cgroup.procs"), "4242\n");
  EXPECT_EQ(get(scope / "cgroup.subtree_control"), "");
  EXPECT_EQ(cgroup.memory_peak_bytes(), std::unexpected(Unavailable::not_supported));
  ASSERT_TRUE(cgroup.add(kChild).has_value());
  EmulatedCgroupFs::put(group / "cgroup.procs", "");
  ASSERT_TRUE(cgroup.remove().has_value());
  EXPECT_FALSE(fs::exists(group));
}

TEST_F(V2, WithoutLimitsTheMemoryControllerIsUsedWhenAlreadyOn) {
  EmulatedCgroupFs::put(scope / "cgroup.procs", "");
  ASSERT_TRUE(cgroupfs.write(scope / "cgroup.subtree_control", "+memory").has_value());
  auto created = create_run_cgroup(cgroupfs, layout, request({}));
  ASSERT_TRUE(created.has_value()) << created.error();
  EXPECT_EQ((*created)->memory_peak_bytes(), 0U);
}

TEST_F(V2, TheGroupIsRemovedWhenDroppedUnused) {
  {
    auto created = create_run_cgroup(cgroupfs, layout, request(all_limits()));
    ASSERT_TRUE(created.has_value()) << created.error();
  }
  EXPECT_FALSE(fs::exists(group));
  EXPECT_FALSE(fs::exists(supervisor));
  EXPECT_EQ(get(scope / "cgroup.procs"), "4242\n");
}

// A hybrid machine: the controllers on v1 hierarchies (cpu with cpuacct), an empty unified
// hierarchy beside them.
class V1 : public ::testing::Test {
 protected:
  void SetUp() override {
    cgroupfs.add_v2_root(base / "unified", {}, {});
    cgroupfs.add_v1_root(base / "cpu,cpuacct", {"cpu", "cpuacct"});
    cgroupfs.add_v1_root(base / "cpuset", {"cpuset"});
    cgroupfs.add_v1_root(base / "memory", {"memory"});
    ASSERT_TRUE(cgroupfs.make_directory(base / "memory/sandbox").has_value());
    layout.unified = base / "unified";
    layout.v1 = {{"cpu", base / "cpu,cpuacct"},
                 {"cpuacct", base / "cpu,cpuacct"},
                 {"cpuset", base / "cpuset"},
                 {"memory", base / "memory/sandbox"}};
  }

  std::string get(const fs::path& file) const { return EmulatedCgroupFs::get(file); }

  TempDir temp;
  fs::path base = temp.path() / "sys/fs/cgroup";
  EmulatedCgroupFs cgroupfs;
  CgroupLayout layout;
};

TEST_F(V1, LimitsGoToTheHierarchyOfEachController) {
  auto created = create_run_cgroup(cgroupfs, layout, request(all_limits()));
  ASSERT_TRUE(created.has_value()) << created.error();
  RunCgroup& cgroup = **created;
  const fs::path cpu = base / "cpu,cpuacct/gpumeter-run-1";
  const fs::path cpuset = base / "cpuset/gpumeter-run-1";
  const fs::path memory = base / "memory/sandbox/gpumeter-run-1";
  EXPECT_EQ(cgroup.version(), CgroupVersion::v1);
  EXPECT_EQ(cgroup.path(), memory);
  EXPECT_EQ(get(cpu / "cpu.cfs_quota_us"), "150000\n");
  EXPECT_EQ(get(cpu / "cpu.cfs_period_us"), "100000\n");
  EXPECT_EQ(get(cpuset / "cpuset.cpus"), "0-1\n");
  EXPECT_EQ(get(cpuset / "cpuset.mems"), "0\n") << "the parent's memory nodes";
  EXPECT_EQ(get(memory / "memory.limit_in_bytes"), "4294967296\n");

  ASSERT_TRUE(cgroup.add(kChild).has_value());
  for (const fs::path& dir : {cpu, cpuset, memory}) EXPECT_EQ(get(dir / "cgroup.procs"), "777\n");
  EmulatedCgroupFs::put(memory / "memory.max_usage_in_bytes", "2048\n");
  EXPECT_EQ(cgroup.memory_peak_bytes(), 2048U);

  for (const fs::path& dir : {cpu, cpuset, memory}) EmulatedCgroupFs::put(dir / "cgroup.procs", "");
  ASSERT_TRUE(cgroup.remove().has_value());
  for (const fs::path& dir : {cpu, cpuset, memory}) EXPECT_FALSE(fs::exists(dir)) << dir;
}

TEST_F(V1, WithoutLimitsOnlyTheMemoryHierarchy) {
  auto created = create_run_cgroup(cgroupfs, layout, request({}));
  ASSERT_TRUE(created.has_value()) << created.error();
  EXPECT_EQ((*created)->path(), base / "memory/sandbox/gpumeter-run-1");
  EXPECT_FALSE(fs::exists(base / "cpu,cpuacct/gpumeter-run-1"));
  EXPECT_FALSE(fs::exists(base / "unified/gpumeter-run-1"));
}

TEST_F(V1, AMissingHierarchyIsNamed) {
  layout.v1.erase("cpuset");
  auto created = create_run_cgroup(cgroupfs, layout, request({.cpuset = "0"}));
  ASSERT_FALSE(created.has_value());
  EXPECT_EQ(created.error(),
            "cgroup v2 does not offer the cpuset controller to " + (base / "unified").string() +
                " (cgroup.controllers); no cgroup v1 hierarchy has the cpuset controller");
}

TEST_F(V1, AFailureHalfWayLeavesNothingBehind) {
  cgroupfs.deny(base / "memory", std::errc::permission_denied);
  auto created = create_run_cgroup(cgroupfs, layout, request(all_limits()));
  ASSERT_FALSE(created.has_value());
  EXPECT_TRUE(contains(created.error(), "cannot create " + (base / "memory/sandbox").string()))
      << created.error();
  EXPECT_FALSE(fs::exists(base / "cpu,cpuacct/gpumeter-run-1"));
  EXPECT_FALSE(fs::exists(base / "cpuset/gpumeter-run-1"));
}

TEST(NoCgroupFileSystem, IsSaidPlainly) {
  EmulatedCgroupFs cgroupfs;
  const auto created = create_run_cgroup(cgroupfs, CgroupLayout{}, request(all_limits()));
  ASSERT_FALSE(created.has_value());
  EXPECT_EQ(created.error(), "no cgroup file system is mounted");
}

}  // namespace gpumeter::host::run_cgroup_test
