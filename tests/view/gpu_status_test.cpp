// SPDX-License-Identifier: MIT
#include "view/gpu_status.h"

#include <gtest/gtest.h>

#include "support/sample_snapshot.h"

namespace gpumeter::view::gpu_status_test {

using cli::testing::sample_snapshot;

class GpuStatusTest : public ::testing::Test {
 protected:
  Snapshot snapshot = sample_snapshot();
  const Device& gpu(std::size_t i) const { return snapshot.gpus.devices[i]; }
};

TEST_F(GpuStatusTest, OneOfEachStatus) {
  EXPECT_EQ(gpu_status(gpu(0), snapshot.processes), GpuStatus::free);
  EXPECT_EQ(gpu_status(gpu(1), snapshot.processes), GpuStatus::in_use);
  EXPECT_EQ(gpu_status(gpu(2), snapshot.processes), GpuStatus::unknown_owner);
  EXPECT_EQ(gpu_status(gpu(3), snapshot.processes), GpuStatus::lost);
  EXPECT_EQ(gpu_status(gpu(4), snapshot.processes), GpuStatus::unknown);
}

TEST_F(GpuStatusTest, APidTheHostDoesNotKnowIsAnUnknownOwner) {
  Device device = gpu(0);
  device.processes = std::vector<GpuProcess>{{.pid = 4242}, {.pid = 999}};
  EXPECT_EQ(gpu_status(device, snapshot.processes), GpuStatus::unknown_owner);
  EXPECT_EQ(gpu_users(device, snapshot.processes), (std::vector<std::string>{"alice", "?"}));
}

TEST_F(GpuStatusTest, AUidWithoutANameIsStillAVisibleOwner) {
  HostProcess& host = *snapshot.processes.at(4242);
  host.user = std::unexpected(Unavailable::not_supported);
  host.uid = 1234U;
  EXPECT_EQ(gpu_status(gpu(1), snapshot.processes), GpuStatus::in_use);
  EXPECT_EQ(gpu_users(gpu(1), snapshot.processes), (std::vector<std::string>{"1234", "bob"}));
}

TEST_F(GpuStatusTest, UsersAreDistinctInProcessOrder) {
  Device device = gpu(1);
  device.processes->push_back({.pid = 4242});
  EXPECT_EQ(gpu_users(device, snapshot.processes), (std::vector<std::string>{"alice", "bob"}));
}

TEST_F(GpuStatusTest, OldestStartIsTheEarliestKnown) {
  EXPECT_EQ(oldest_start(gpu(1), snapshot.processes),
            cli::testing::kNow - 3 * cli::testing::kHour - 720'000'000);
  EXPECT_FALSE(oldest_start(gpu(0), snapshot.processes).has_value());
  EXPECT_FALSE(oldest_start(gpu(2), snapshot.processes).has_value());
}

TEST_F(GpuStatusTest, CommandsFullAndShort) {
  const Maybe<HostProcess>& alice = snapshot.processes.at(4242);
  EXPECT_EQ(full_command(alice), "python3 -u /home/alice/train.py --lr 3");
  EXPECT_EQ(brief_command(alice), "train.py");
  EXPECT_EQ(brief_command(snapshot.processes.at(4343)), "jupyter");
  EXPECT_EQ(full_command(snapshot.processes.at(77)).error(), Unavailable::no_permission);
}

TEST_F(GpuStatusTest, AnEmptyCommandLineFallsBackToComm) {
  HostProcess& host = *snapshot.processes.at(4242);
  host.cmdline = std::unexpected(Unavailable::not_supported);
  EXPECT_EQ(full_command(snapshot.processes.at(4242)), "python3");
  host.comm = std::unexpected(Unavailable::process_gone);
  EXPECT_EQ(brief_command(snapshot.processes.at(4242)).error(), Unavailable::not_supported);
}

// In use by its VMs whatever the host's own (empty) process list says.
TEST_F(GpuStatusTest, AVgpuHostIsInUseByItsVms) {
  Device device = gpu(0);
  device.vgpu = VgpuHost{};
  EXPECT_EQ(gpu_status(device, snapshot.processes), GpuStatus::vgpu_host);
  device.lost = true;
  EXPECT_EQ(gpu_status(device, snapshot.processes), GpuStatus::lost);
}

TEST(StatusWords, MarkersAndKeys) {
  EXPECT_EQ(status_marker(GpuStatus::free), "[ ]");
  EXPECT_EQ(status_marker(GpuStatus::in_use), "[~]");
  EXPECT_EQ(status_marker(GpuStatus::unknown_owner), "[!]");
  EXPECT_EQ(status_marker(GpuStatus::lost), "lost");
  EXPECT_EQ(status_key(GpuStatus::unknown_owner), "unknown_owner");
  EXPECT_EQ(status_marker(GpuStatus::vgpu_host), "[v]");
  EXPECT_EQ(status_key(GpuStatus::vgpu_host), "vgpu_host");
}

}  // namespace gpumeter::view::gpu_status_test
