// SPDX-License-Identifier: MIT
// Limiting processes that already run, showing and clearing the limits, on a temporary
// directory laid out like cgroup v2 and v1, through an emulation of the kernel's rules
// (emulated_cgroup_fs.h).
#include "host/limit_cgroup.h"

#include <gtest/gtest.h>

#include "support/emulated_cgroup_fs.h"
#include "support/temp_dir.h"

namespace gpumeter::host::limit_cgroup_test {

using gpumeter::testing::TempDir;
using testing::EmulatedCgroupFs;
using Words = EmulatedCgroupFs::Words;
namespace fs = std::filesystem;

constexpr Pid kSelf = 4242;
// The worker, its child and grandchild.
const std::vector<Pid> kTree{100, 101, 102};

std::vector<Pid> tree() {
  return kTree;
}

CgroupRequest request(Limits limits) {
  return CgroupRequest{.name = "gpumeter-limit-100", .limits = std::move(limits), .self = kSelf};
}

Words procs(const fs::path& dir) {
  auto pids = EmulatedCgroupFs::words(EmulatedCgroupFs::get(dir / "cgroup.procs"));
  std::ranges::sort(pids);
  return pids;
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// cgroup v2: we run alone in a session scope; the worker's tree in a service of its own.
class LimitV2 : public ::testing::Test {
 protected:
  void SetUp() override {
    cgroupfs.add_v2_root(root, {"cpuset", "cpu", "memory", "pids"}, {"cpuset", "cpu", "memory"});
    for (const fs::path& dir : {root / "user.slice", root / "system.slice"}) {
      ASSERT_TRUE(cgroupfs.make_directory(dir).has_value()) << dir;
      ASSERT_TRUE(
          cgroupfs.write(dir / "cgroup.subtree_control", "+cpuset +cpu +memory").has_value());
    }
    ASSERT_TRUE(cgroupfs.make_directory(scope).has_value());
    ASSERT_TRUE(cgroupfs.make_directory(service).has_value());
    cgroupfs.place(scope, std::to_string(kSelf));
    for (const Pid pid : kTree) cgroupfs.place(service, std::to_string(pid));
    ours.unified = scope;
  }

  // Where each process is, as read_cgroup_layout(root, "<pid>") would say.
  ProcessCgroups where() const {
    return [this](Pid) { return CgroupLayout{.unified = service, .v1 = {}}; };
  }

  TempDir temp;
  fs::path root = temp.path() / "sys/fs/cgroup";
  fs::path scope = root / "user.slice/session-1.scope";
  fs::path service = root / "system.slice/worker.service";
  fs::path group = scope / "gpumeter-limit-100";
  EmulatedCgroupFs cgroupfs;
  CgroupLayout ours;
};

TEST_F(LimitV2, EveryProcessOfTheTreeMovesIntoAGroupWithTheLimitsAndBackOnClear) {
  const Limits limits{.cpu = CpuQuota{50'000, 100'000}, .cpuset = "0", .memory_bytes = 1ULL << 30};
  auto limited = limit_processes(cgroupfs, ours, request(limits), tree, where());
  ASSERT_TRUE(limited.has_value()) << limited.error();
  EXPECT_EQ(limited->version, CgroupVersion::v2);
  EXPECT_EQ(limited->groups, std::vector<fs::path>{group});
  EXPECT_EQ(procs(group), (Words{"100", "101", "102"}));
  EXPECT_EQ(procs(service), Words{});
  EXPECT_EQ(EmulatedCgroupFs::get(group / "cpu.max"), "50000 100000\n");
  EXPECT_EQ(EmulatedCgroupFs::get(group / "cpuset.cpus"), "0\n");
  EXPECT_EQ(EmulatedCgroupFs::get(group / "memory.max"), "1073741824\n");
  for (const Pid pid : kTree) EXPECT_EQ(limited->origins.at(pid), std::vector<fs::path>{service});

  const auto now = read_limits_in_force(cgroupfs, *limited);
  ASSERT_TRUE(now.has_value()) << now.error();
  EXPECT_EQ(now->limits.cpu, limits.cpu);
  EXPECT_EQ(now->limits.cpuset, "0");
  EXPECT_EQ(now->limits.memory_bytes, 1ULL << 30);
  EXPECT_EQ(now->members, kTree);

  cgroupfs.place(group, "103");  // forked after the limit: the kernel put it in the group
  EmulatedCgroupFs::put(scope / "gpumeter-limit-100-supervisor/cgroup.procs", "");  // we exited
  ASSERT_TRUE(clear_limits(cgroupfs, *limited, 100).has_value());
  EXPECT_EQ(procs(service), (Words{"100", "101", "102", "103"}));
  EXPECT_FALSE(fs::exists(group));
  EXPECT_FALSE(fs::exists(scope / "gpumeter-limit-100-supervisor"));
}

TEST_F(LimitV2, AProcessForkedWhileTheTreeMovesIsMovedToo) {
  int looks = 0;
  const ProcessTree growing = [&] {
    ++looks;
    // 102 forked 103 while it was still outside the group.
    if (looks == 2) cgroupfs.place(service, "103");
    return looks == 1 ? kTree : std::vector<Pid>{100, 101, 102, 103};
  };
  auto limited =
      limit_processes(cgroupfs, ours, request({.memory_bytes = 1ULL << 30}), growing, where());
  ASSERT_TRUE(limited.has_value()) << limited.error();
  EXPECT_EQ(procs(group), (Words{"100", "101", "102", "103"}));
  EXPECT_EQ(procs(service), Words{});
  EXPECT_EQ(looks, 3) << "until a look finds nothing new";
  EXPECT_TRUE(limited->origins.contains(103));
}

TEST_F(LimitV2, AProcessForkedInsideTheGroupIsNotRecordedAsComingFromIt) {
  int looks = 0;
  const ProcessTree growing = [&] {
    // 100 forked 104 after it was moved: the kernel started 104 in the group.
    if (++looks == 2) cgroupfs.place(group, "104");
    return looks == 1 ? kTree : std::vector<Pid>{100, 101, 102, 104};
  };
  const ProcessCgroups inside = [this](Pid pid) {
    return CgroupLayout{.unified = pid == 104 ? group : service, .v1 = {}};
  };
  auto limited =
      limit_processes(cgroupfs, ours, request({.memory_bytes = 1ULL << 30}), growing, inside);
  ASSERT_TRUE(limited.has_value()) << limited.error();
  EXPECT_FALSE(limited->origins.contains(104));
  EmulatedCgroupFs::put(scope / "gpumeter-limit-100-supervisor/cgroup.procs", "");
  ASSERT_TRUE(clear_limits(cgroupfs, *limited, 100).has_value());
  EXPECT_EQ(procs(service), (Words{"100", "101", "102", "104"}));
  EXPECT_FALSE(fs::exists(group));
}

TEST_F(LimitV2, OnlyTheLimitsAskedForAreShown) {
  auto limited =
      limit_processes(cgroupfs, ours, request({.memory_bytes = 512ULL << 20}), tree, where());
  ASSERT_TRUE(limited.has_value()) << limited.error();
  const auto now = read_limits_in_force(cgroupfs, *limited);
  ASSERT_TRUE(now.has_value()) << now.error();
  EXPECT_FALSE(now->limits.cpu.has_value());
  EXPECT_FALSE(now->limits.cpuset.has_value());
  EXPECT_EQ(now->limits.memory_bytes, 512ULL << 20);
}

TEST_F(LimitV2, AProcessWhoseCgroupWeCannotSeeChangesNothing) {
  const ProcessCgroups elsewhere = [this](Pid pid) {
    if (pid == 102) return CgroupLayout{};
    return CgroupLayout{.unified = service, .v1 = {}};
  };
  auto limited =
      limit_processes(cgroupfs, ours, request({.cpu = CpuQuota{50'000, 100'000}}), tree, elsewhere);
  ASSERT_FALSE(limited.has_value());
  EXPECT_TRUE(contains(limited.error(), "the cgroup of pid 102 in the cgroup v2 hierarchy"))
      << limited.error();
  EXPECT_EQ(procs(service), (Words{"100", "101", "102"}));
  EXPECT_FALSE(fs::exists(group));
}

TEST_F(LimitV2, AMissingControllerIsNamed) {
  EmulatedCgroupFs::put(scope / "cgroup.controllers", "memory\n");
  auto limited = limit_processes(cgroupfs, ours, request({.cpuset = "0"}), tree, where());
  ASSERT_FALSE(limited.has_value());
  EXPECT_TRUE(contains(limited.error(), "does not offer the cpuset controller")) << limited.error();
  EXPECT_EQ(procs(service), (Words{"100", "101", "102"}));
}

TEST_F(LimitV2, ARefusedMoveIsReportedAndTheOthersGoBack) {
  cgroupfs.deny(group / "cgroup.procs", std::errc::permission_denied);
  auto limited =
      limit_processes(cgroupfs, ours, request({.memory_bytes = 1ULL << 30}), tree, where());
  ASSERT_FALSE(limited.has_value());
  EXPECT_TRUE(contains(limited.error(), "cannot move pid 100 into")) << limited.error();
  EXPECT_TRUE(contains(limited.error(), "Permission denied")) << limited.error();
  EXPECT_EQ(procs(service), (Words{"100", "101", "102"}));
}

TEST_F(LimitV2, AGroupThatIsGoneCannotBeShown) {
  const LimitedGroup gone{.version = CgroupVersion::v2, .groups = {group}, .origins = {}};
  const auto now = read_limits_in_force(cgroupfs, gone);
  ASSERT_FALSE(now.has_value());
  EXPECT_TRUE(contains(now.error(), "cannot read " + (group / "cgroup.procs").string()))
      << now.error();
}

// cgroup v1 on a hybrid system: a hierarchy per controller; our memory group is a container's.
class LimitV1 : public ::testing::Test {
 protected:
  void SetUp() override {
    cgroupfs.add_v1_root(base / "cpu", {"cpu"});
    cgroupfs.add_v1_root(base / "cpuset", {"cpuset"});
    cgroupfs.add_v1_root(base / "memory", {"memory"});
    ASSERT_TRUE(cgroupfs.make_directory(base / "memory/box").has_value());
    ours.v1 = {{"cpu", base / "cpu"}, {"cpuset", base / "cpuset"}, {"memory", base / "memory/box"}};
    for (const Pid pid : kTree) {
      for (const char* dir : {"cpu", "cpuset", "memory/box"}) {
        cgroupfs.place(base / dir, std::to_string(pid));
      }
    }
  }

  ProcessCgroups where() const {
    return [this](Pid) { return ours; };
  }

  TempDir temp;
  fs::path base = temp.path() / "sys/fs/cgroup";
  EmulatedCgroupFs cgroupfs;
  CgroupLayout ours;
};

TEST_F(LimitV1, EachHierarchyGetsAGroupWithItsFilesAndClearRemovesThem) {
  const Limits limits{.cpu = CpuQuota{50'000, 100'000}, .cpuset = "0", .memory_bytes = 1ULL << 30};
  auto limited = limit_processes(cgroupfs, ours, request(limits), tree, where());
  ASSERT_TRUE(limited.has_value()) << limited.error();
  const fs::path cpu = base / "cpu/gpumeter-limit-100";
  const fs::path cpuset = base / "cpuset/gpumeter-limit-100";
  const fs::path memory = base / "memory/box/gpumeter-limit-100";
  EXPECT_EQ(limited->version, CgroupVersion::v1);
  EXPECT_EQ(limited->groups, (std::vector<fs::path>{memory, cpu, cpuset}));
  EXPECT_EQ(limited->origins.at(101),
            (std::vector<fs::path>{base / "memory/box", base / "cpu", base / "cpuset"}));
  EXPECT_EQ(EmulatedCgroupFs::get(cpu / "cpu.cfs_period_us"), "100000\n");
  EXPECT_EQ(EmulatedCgroupFs::get(cpu / "cpu.cfs_quota_us"), "50000\n");
  EXPECT_EQ(EmulatedCgroupFs::get(cpuset / "cpuset.cpus"), "0\n");
  EXPECT_EQ(EmulatedCgroupFs::get(cpuset / "cpuset.mems"), "0\n");
  EXPECT_EQ(EmulatedCgroupFs::get(memory / "memory.limit_in_bytes"), "1073741824\n");
  for (const fs::path& dir : {cpu, cpuset, memory}) {
    EXPECT_EQ(procs(dir), (Words{"100", "101", "102"})) << dir;
  }
  EXPECT_EQ(procs(base / "cpu"), Words{});

  const auto now = read_limits_in_force(cgroupfs, *limited);
  ASSERT_TRUE(now.has_value()) << now.error();
  EXPECT_EQ(now->limits.cpu, limits.cpu);
  EXPECT_EQ(now->limits.cpuset, "0");
  EXPECT_EQ(now->limits.memory_bytes, 1ULL << 30);

  ASSERT_TRUE(clear_limits(cgroupfs, *limited, 100).has_value());
  for (const char* dir : {"cpu", "cpuset", "memory/box"}) {
    EXPECT_EQ(procs(base / dir), (Words{"100", "101", "102"})) << dir;
  }
  for (const fs::path& dir : {cpu, cpuset, memory}) EXPECT_FALSE(fs::exists(dir)) << dir;
}

TEST_F(LimitV1, UnlimitedFilesReadAsNoLimit) {
  auto limited = limit_processes(cgroupfs, ours, request({.cpuset = "1"}), tree, where());
  ASSERT_TRUE(limited.has_value()) << limited.error();
  const auto now = read_limits_in_force(cgroupfs, *limited);
  ASSERT_TRUE(now.has_value()) << now.error();
  EXPECT_FALSE(now->limits.cpu.has_value());
  EXPECT_FALSE(now->limits.memory_bytes.has_value()) << "9223372036854771712 is the kernel's none";
  EXPECT_EQ(now->limits.cpuset, "1");
}

TEST_F(LimitV1, AHierarchyWithoutTheControllerIsNamed) {
  ours.v1.erase("cpuset");
  auto limited = limit_processes(cgroupfs, ours, request({.cpuset = "0"}), tree, where());
  ASSERT_FALSE(limited.has_value());
  EXPECT_EQ(limited.error(), "no cgroup v1 hierarchy has the cpuset controller");
}

}  // namespace gpumeter::host::limit_cgroup_test
