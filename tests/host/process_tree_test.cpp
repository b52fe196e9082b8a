// SPDX-License-Identifier: MIT
#include "host/process_tree.h"

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace gpumeter::host::process_tree_test {

using gpumeter::testing::TempDir;

// A process table: gpumeter (100) runs a command (200), whose child (201) runs a worker
// (202) and left a zombie (203); 300 was adopted by gpumeter after its parent exited; 400
// and 401 are unrelated; 500 has an unparsable stat and 600 none (it exited while listed).
const std::filesystem::path kTree = GPUMETER_HOST_FIXTURES "/tree";

TEST(Descendants, FollowsParentLinksToEveryDepth) {
  EXPECT_EQ(descendants(kTree, 100), (std::vector<Pid>{200, 201, 202, 300}));
  EXPECT_EQ(descendants(kTree, 201), (std::vector<Pid>{202}));
  EXPECT_EQ(descendants(kTree, 400), (std::vector<Pid>{401}));
}

TEST(Descendants, NoneForALeafAnUnknownPidOrAMissingProcfs) {
  EXPECT_TRUE(descendants(kTree, 202).empty());
  EXPECT_TRUE(descendants(kTree, 999).empty());
  EXPECT_TRUE(descendants(kTree / "nonexistent", 100).empty());
}

TEST(CgroupMembers, ReadsNestedGroupsAtAnyDepth) {
  const TempDir cgroup;
  cgroup.write("cgroup.procs", "12\n13\n");
  cgroup.write("a/cgroup.procs", "14\n");
  cgroup.write("a/b/cgroup.procs", "15\n12\n");
  cgroup.write("c/cgroup.procs", "");
  cgroup.write("a/b/memory.peak", "1234\n");
  EXPECT_EQ(cgroup_members(cgroup.path()), (std::vector<Pid>{12, 13, 14, 15}));
}

TEST(CgroupMembers, AnEmptyGroupHasNoMembers) {
  const TempDir cgroup;
  cgroup.write("cgroup.procs", "");
  const auto members = cgroup_members(cgroup.path());
  ASSERT_TRUE(members.has_value());
  EXPECT_TRUE(members->empty());
}

TEST(CgroupMembers, AGroupThatIsGoneIsAnError) {
  const TempDir cgroup;
  const auto members = cgroup_members(cgroup.path() / "removed");
  ASSERT_FALSE(members.has_value());
  EXPECT_EQ(members.error(), std::errc::no_such_file_or_directory);
}

}  // namespace gpumeter::host::process_tree_test
