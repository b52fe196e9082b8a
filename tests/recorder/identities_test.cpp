// SPDX-License-Identifier: MIT
// Who the processes of the series are, from the snapshots seen.
#include "recorder/identities.h"

#include <gtest/gtest.h>

namespace gpumeter::recorder::identities_test {

constexpr TimeUs kT0 = 1'767'225'600'000'000;
constexpr TimeUs kStart = kT0 - 3'600'000'000;

Snapshot snapshot(TimeUs time_us) {
  Snapshot s;
  s.time_us = time_us;
  s.gpus.devices.resize(2);
  s.gpus.devices[0].identity.index = 1;
  s.gpus.devices[0].identity.uuid = "GPU-1";
  s.gpus.devices[1].identity.index = 2;
  HostProcess alice;
  alice.pid = 10;
  alice.uid = 1000U;
  alice.user = "alice";
  alice.cmdline = std::vector<std::string>{"python3", "train.py", "--lr", "3"};
  alice.start_time_us = kStart;
  alice.container = Container{"docker", "c0ffee"};
  s.processes.emplace(10, alice);
  HostProcess hidden;  // the host cannot tell its start time or its command line
  hidden.pid = 20;
  hidden.uid = 1001U;
  hidden.comm = "worker";
  s.processes.emplace(20, hidden);
  s.processes.emplace(30, std::unexpected(Unavailable::no_permission));
  return s;
}

TEST(Identities, DescribeAProcessOnAGpuFromTheSnapshots) {
  Identities identities;
  identities.note(snapshot(kT0));
  const auto alice = identities.identity({10, kStart}, 1);
  ASSERT_TRUE(alice);
  EXPECT_EQ(alice->pid, 10U);
  EXPECT_EQ(alice->start_time_us, kStart);
  EXPECT_EQ(alice->gpu_uuid, "GPU-1");
  EXPECT_EQ(alice->gpu_index, 1U);
  EXPECT_EQ(alice->uid, 1000U);
  EXPECT_EQ(alice->user, "alice");
  EXPECT_EQ(alice->command, "python3 train.py --lr 3");
  ASSERT_TRUE(alice->container);
  EXPECT_EQ(alice->container->id, "c0ffee");
}

TEST(Identities, AStartTimeTheHostCouldNotTellFallsBackToThePid) {
  Identities identities;
  identities.note(snapshot(kT0));
  // The sampler remembered pid 20's start time from an earlier round.
  const auto worker = identities.identity({20, kStart}, 1);
  ASSERT_TRUE(worker);
  EXPECT_EQ(worker->start_time_us, kStart);
  EXPECT_EQ(worker->command, "worker");
  EXPECT_FALSE(worker->user);
  const auto unseen = identities.identity({30, 0}, 1);
  ASSERT_TRUE(unseen);
  EXPECT_FALSE(unseen->uid);
  EXPECT_FALSE(unseen->command);
}

TEST(Identities, AGpuWithoutUuidHasNoIdentities) {
  Identities identities;
  identities.note(snapshot(kT0));
  EXPECT_FALSE(identities.identity({10, kStart}, 2));
  EXPECT_FALSE(identities.identity({10, kStart}, 7));
  EXPECT_EQ(identities.uuid(1), "GPU-1");
  EXPECT_FALSE(identities.uuid(2));
}

TEST(Identities, ForgottenProcessesKeepOnlyWhatTheKeySays) {
  Identities identities;
  identities.note(snapshot(kT0));
  identities.forget_before(kT0 + 1);
  const auto alice = identities.identity({10, kStart}, 1);
  ASSERT_TRUE(alice);
  EXPECT_FALSE(alice->user);
  EXPECT_EQ(alice->gpu_uuid, "GPU-1") << "GPUs are never forgotten";
}

}  // namespace gpumeter::recorder::identities_test
