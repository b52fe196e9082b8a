// SPDX-License-Identifier: MIT
#include "host/cgroup.h"

#include <gtest/gtest.h>

#include <string>

namespace gpumeter::host::cgroup_test {

const std::string kId64 = "3f4e8a1b2c9d0e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f";

void expect_container(const std::string& text, const std::string& runtime, const std::string& id) {
  SCOPED_TRACE(text);
  auto container = parse_cgroup(text);
  ASSERT_TRUE(container.has_value());
  EXPECT_EQ(container->runtime, runtime);
  EXPECT_EQ(container->id, id);
}

TEST(ParseCgroup, DockerSystemdDriverV2) {
  expect_container("0::/system.slice/docker-" + kId64 + ".scope\n", "docker", kId64);
}

TEST(ParseCgroup, DockerCgroupfsDriverV1) {
  expect_container("12:memory:/docker/" + kId64 + "\n11:cpu,cpuacct:/docker/" + kId64 + "\n0::/\n",
                   "docker", kId64);
}

TEST(ParseCgroup, Containerd) {
  expect_container("0::/system.slice/cri-containerd-" + kId64 + ".scope\n", "containerd", kId64);
}

TEST(ParseCgroup, Podman) {
  expect_container("0::/machine.slice/libpod-" + kId64 + ".scope/container\n", "podman", kId64);
  expect_container("0::/libpod_parent/libpod-" + kId64 + "\n", "podman", kId64);
  // conmon, podman's monitor, is not the container.
  EXPECT_FALSE(parse_cgroup("0::/machine.slice/libpod-conmon-" + kId64 + ".scope\n"));
}

TEST(ParseCgroup, KubernetesSystemdDriverNamesThePod) {
  expect_container(
      "0::/kubepods.slice/kubepods-burstable.slice/"
      "kubepods-burstable-pod1a2b3c4d_5e6f_7081_92a3_b4c5d6e7f809.slice/cri-containerd-" +
          kId64 + ".scope\n",
      "kubernetes", "1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f809");
  expect_container(
      "0::/kubepods.slice/kubepods-pod0011aabb_ccdd.slice/docker-" + kId64 + ".scope\n",
      "kubernetes", "0011aabb-ccdd");
}

TEST(ParseCgroup, KubernetesCgroupfsDriverV1) {
  expect_container(
      "11:memory:/kubepods/besteffort/pod5e1d2c3b-aaaa-bbbb-cccc-0123456789ab/" + kId64 +
          "\n1:name=systemd:/kubepods/besteffort/pod5e1d2c3b-aaaa-bbbb-cccc-0123456789ab/" + kId64 +
          "\n",
      "kubernetes", "5e1d2c3b-aaaa-bbbb-cccc-0123456789ab");
}

TEST(ParseCgroup, SlurmV1AndV2) {
  expect_container(
      "11:devices:/slurm/uid_1002/job_98765/step_0/task_0\n1:name=systemd:/user.slice\n", "slurm",
      "98765");
  expect_container("0::/system.slice/slurmstepd.scope/job_4321/step_batch/user/task_0\n", "slurm",
                   "4321");
  EXPECT_FALSE(parse_cgroup("0::/system.slice/job_soon.service\n"));
}

TEST(ParseCgroup, PlainSessionsAndRootAreNoContainer) {
  EXPECT_FALSE(parse_cgroup("0::/user.slice/user-1000.slice/session-7.scope\n"));
  EXPECT_FALSE(parse_cgroup("0::/\n"));
  EXPECT_FALSE(parse_cgroup(""));
  EXPECT_FALSE(parse_cgroup("garbage without colons\n"));
  // Too short to be a container id.
  EXPECT_FALSE(parse_cgroup("0::/system.slice/docker-abc.scope\n"));
  // "pod" outside kubepods is an ordinary name.
  EXPECT_FALSE(parse_cgroup("0::/user.slice/podcast.service\n"));
}

TEST(ParseCgroup, PathsMayContainColons) {
  expect_container("0::/weird:name/docker-" + kId64 + ".scope\n", "docker", kId64);
}

}  // namespace gpumeter::host::cgroup_test
