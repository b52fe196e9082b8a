// SPDX-License-Identifier: MIT
// A vGPU host through the backend and the real dlopen path against the simulated library:
// the figures read equal the scripted ones, the instance list growing between the sizing call
// and the read, NOT_FOUND as "nothing newer", the older calls on older drivers (no JPEG/OFA,
// no licence state), bare-metal GPUs, bounded retries and the root-only clear.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/sim_backend.h"

namespace gpumeter::nvml::vgpu_sim_test {

using testing::SimBackendTest;

constexpr TimeUs kEpoch = 1'700'000'000'000'000;  // SimBackendTest's epoch

// GPU 0 hosts three VMs (the third appears right after the first sizing call); GPU 1 is bare
// metal. Instance 11 runs two processes, instance 12 one; its guest has no driver loaded.
constexpr std::string_view kScenario = R"({
  "device_defaults": {"name": "NVIDIA A16", "memory_total_bytes": 17179869184,
                      "sample_period_ms": 500},
  "devices": [{}, {}],
  "vgpu": {
    "hosts": [0],
    "instances": [
      {"device": 0, "id": 11, "uuid": "4f1c2b7e-0000-4000-a000-000000000011",
       "vm_id": "7d3a9e10-5b2c-4c55-9a77-1f00d0c0ffee", "type_id": 330,
       "type_name": "NVIDIA A16-4Q", "fb_used_bytes": 1073741824,
       "license": {"state": "licensed", "expiry": "2027-03-31T23:59:59Z"},
       "accounting": {"enabled": true, "processes": [
         {"pid": 100, "gpu_utilization": 55, "memory_utilization": 20,
          "max_memory_bytes": 536870912, "start_s": 0},
         {"pid": 101, "gpu_utilization": 10, "start_s": 0.5, "end_s": 2}]}},
      {"device": 0, "id": 12, "vm_id": "42", "vm_id_type": "domain", "type_id": 331,
       "type_name": "NVIDIA A16-8Q", "fb_used_bytes": 2147483648, "guest_driver": false},
      {"device": 0, "id": 13, "type_id": 330, "type_name": "NVIDIA A16-4Q",
       "appears_after_sizing": true}
    ],
    "processes": [
      {"instance": 11, "pid": 2001, "name": "blender",
       "utilization": {"sm": 40, "mem": 20, "jpg": 10, "ofa": 5}},
      {"instance": 11, "pid": 2002, "name": "ffmpeg",
       "utilization": {"sm": 10, "enc": 30, "dec": 25}},
      {"instance": 12, "pid": 3001, "name": "python3", "utilization": {"sm": 70}}
    ]
  }
})";

const VgpuInstance& instance(const VgpuHost& host, std::uint32_t id) {
  const auto it = std::ranges::find(host.instances, id, &VgpuInstance::id);
  if (it == host.instances.end()) throw std::runtime_error("no such instance");
  return *it;
}

const VgpuProcess* process(const VgpuHost& host, std::uint32_t pid) {
  const auto it = std::ranges::find(*host.processes, pid, &VgpuProcess::pid);
  return it == host.processes->end() ? nullptr : &*it;
}

VgpuHost host_of(GpuSource& source) {
  auto reading = source.read();
  if (!reading) throw std::runtime_error(reading.error().message);
  if (!reading->devices.at(0).vgpu) throw std::runtime_error("device 0 has no vGPU host");
  return *reading->devices.at(0).vgpu;
}

TEST_F(SimBackendTest, VgpuInstancesAsScripted) {
  auto source = open(kScenario, 3.0);
  ASSERT_NE(source, nullptr);
  const VgpuHost host = host_of(*source);
  // Instance 13 appeared between the sizing call and the read: the backend sized again.
  ASSERT_EQ(host.instances.size(), 3U);
  const VgpuInstance& a = instance(host, 11);
  EXPECT_EQ(a.uuid, "4f1c2b7e-0000-4000-a000-000000000011");
  EXPECT_EQ(a.vm_id, "7d3a9e10-5b2c-4c55-9a77-1f00d0c0ffee");
  EXPECT_EQ(a.vm_id_kind, VmIdKind::uuid);
  EXPECT_EQ(a.type_id, 330U);
  EXPECT_EQ(a.type_name, "NVIDIA A16-4Q");
  EXPECT_EQ(a.fb_used_bytes, 1073741824U);
  ASSERT_TRUE(a.license.has_value());
  EXPECT_TRUE(a.license->licensed);
  EXPECT_EQ(a.license->state, LicenseState::licensed);
  EXPECT_EQ(a.license->expiry_kind, LicenseExpiryKind::valid);
  EXPECT_EQ(a.license->expiry_us, 1'806'537'599'000'000);  // 2027-03-31T23:59:59Z
  ASSERT_TRUE(a.utilization.has_value());
  EXPECT_EQ(a.utilization->time_us, kEpoch + 3'000'000);
  EXPECT_EQ(a.utilization->sm, 50);  // 40 + 10
  EXPECT_EQ(a.utilization->memory, 20);
  EXPECT_EQ(a.utilization->encoder, 30);
  EXPECT_EQ(a.utilization->decoder, 25);
  EXPECT_EQ(a.utilization->jpeg, 10);
  EXPECT_EQ(a.utilization->ofa, 5);
  ASSERT_TRUE(a.accounting.has_value());
  EXPECT_TRUE(a.accounting->enabled);
  ASSERT_TRUE(a.accounting->records.has_value());
  ASSERT_EQ(a.accounting->records->size(), 2U);
  const VgpuAccountingRecord& running = a.accounting->records->at(0);
  EXPECT_EQ(running.pid, 100U);
  EXPECT_TRUE(running.running);
  EXPECT_EQ(running.gpu_utilization, 55);
  EXPECT_EQ(running.max_memory_bytes, 536870912U);
  EXPECT_FALSE(running.duration_us.has_value());
  const VgpuAccountingRecord& ended = a.accounting->records->at(1);
  EXPECT_FALSE(ended.running);
  EXPECT_EQ(ended.start_us, kEpoch + 500'000);
  EXPECT_EQ(ended.duration_us, 1'500'000);

  const VgpuInstance& b = instance(host, 12);
  EXPECT_EQ(b.vm_id, "42");
  EXPECT_EQ(b.vm_id_kind, VmIdKind::domain_id);
  EXPECT_EQ(b.type_name, "NVIDIA A16-8Q");
  EXPECT_EQ(b.license, std::unexpected(Unavailable::error));  // DRIVER_NOT_LOADED in the guest
  ASSERT_TRUE(b.utilization.has_value());
  EXPECT_EQ(b.utilization->sm, 70);
  EXPECT_EQ(instance(host, 13).utilization->sm, 0);

  ASSERT_TRUE(host.processes.has_value());
  ASSERT_EQ(host.processes->size(), 3U);
  const VgpuProcess* blender = process(host, 2001);
  ASSERT_NE(blender, nullptr);
  EXPECT_EQ(blender->instance, 11U);
  EXPECT_EQ(blender->name, "blender");
  EXPECT_EQ(blender->utilization.time_us, kEpoch + 3'000'000);  // the newest of the drain
  EXPECT_EQ(blender->utilization.sm, 40);
  EXPECT_EQ(blender->utilization.jpeg, 10);
  EXPECT_EQ(process(host, 2002)->utilization.encoder, 30);
  EXPECT_EQ(process(host, 3001)->instance, 12U);
}

TEST_F(SimBackendTest, VgpuBareMetalGpuIsNotAHost) {
  auto source = open(kScenario, 3.0);
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value());
  EXPECT_EQ(reading->devices.at(1).vgpu, std::unexpected(Unavailable::not_supported));
}

// The next read passes the newest sample time it stored: nothing newer (NOT_FOUND) keeps the
// last sample and lists no busy process; once a period has passed, only that one comes.
TEST_F(SimBackendTest, VgpuDrainsOnlyNewerSamples) {
  auto source = open(kScenario, 3.0);
  ASSERT_NE(source, nullptr);
  (void)host_of(*source);
  const VgpuHost same = host_of(*source);
  EXPECT_EQ(instance(same, 11).utilization->time_us, kEpoch + 3'000'000);
  EXPECT_EQ(instance(same, 11).utilization->sm, 50);
  ASSERT_TRUE(same.processes.has_value());
  EXPECT_TRUE(same.processes->empty());
  at(3.6);
  const VgpuHost later = host_of(*source);
  EXPECT_EQ(instance(later, 11).utilization->time_us, kEpoch + 3'500'000);
  ASSERT_EQ(later.processes->size(), 3U);
  EXPECT_EQ(process(later, 2001)->utilization.time_us, kEpoch + 3'500'000);
}

// r535 lacks the 550+ *UtilizationInfo calls: the older ones answer, without JPEG and OFA.
TEST_F(SimBackendTest, VgpuFallsBackToTheOlderUtilizationCalls) {
  auto source = open(kScenario, 3.0, testing::kSimR535Library);
  ASSERT_NE(source, nullptr);
  const VgpuHost host = host_of(*source);
  const VgpuInstance& a = instance(host, 11);
  EXPECT_EQ(a.utilization->sm, 50);
  EXPECT_EQ(a.utilization->encoder, 30);
  EXPECT_EQ(a.utilization->jpeg, std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(a.utilization->ofa, std::unexpected(Unavailable::not_supported));
  EXPECT_EQ(a.license->state, LicenseState::licensed);  // _v2 exists from 510 on
  const VgpuProcess* blender = process(host, 2001);
  ASSERT_NE(blender, nullptr);
  EXPECT_EQ(blender->utilization.sm, 40);
  EXPECT_EQ(blender->utilization.jpeg, std::unexpected(Unavailable::not_supported));
}

// About 470: no licence info _v2 either; the old status says licensed or not, nothing more.
TEST_F(SimBackendTest, VgpuLicenceFromTheOldCallOnLegacyDrivers) {
  auto source = open(kScenario, 3.0, testing::kSimLegacyLibrary);
  ASSERT_NE(source, nullptr);
  const VgpuHost host = host_of(*source);
  const VgpuInstance& a = instance(host, 11);
  ASSERT_TRUE(a.license.has_value());
  EXPECT_TRUE(a.license->licensed);
  EXPECT_EQ(a.license->state, std::unexpected(Unavailable::not_supported));
  EXPECT_FALSE(a.license->expiry_us.has_value());
  EXPECT_EQ(a.utilization->ofa, std::unexpected(Unavailable::not_supported));
}

// A list that never settles: the backend gives up after kVgpuListAttempts with an error.
TEST_F(SimBackendTest, VgpuListThatNeverSettlesIsAnError) {
  std::string scenario(kScenario);
  scenario.insert(scenario.rfind('}'), R"(, "faults": {"flaky": [{"functions":
      ["nvmlDeviceGetActiveVgpus"], "every": 1, "code": "INSUFFICIENT_SIZE"}]})");
  auto source = open(scenario, 3.0);
  ASSERT_NE(source, nullptr);
  auto reading = source->read();
  ASSERT_TRUE(reading.has_value());
  EXPECT_EQ(reading->devices.at(0).vgpu, std::unexpected(Unavailable::error));
}

TEST_F(SimBackendTest, VgpuClearAccountingNeedsRoot) {
  std::string scenario(kScenario);
  scenario.insert(scenario.find('{') + 1, R"("driver": {"privileged": false},)");
  auto source = open(scenario, 3.0);
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->clear_vgpu_accounting(11), std::unexpected(Unavailable::no_permission));
}

TEST_F(SimBackendTest, VgpuClearAccountingForgetsEndedProcesses) {
  std::string scenario(kScenario);
  scenario.insert(scenario.find('{') + 1, R"("driver": {"privileged": true},)");
  auto source = open(scenario, 3.0);
  ASSERT_NE(source, nullptr);
  ASSERT_TRUE(source->clear_vgpu_accounting(11).has_value());
  const VgpuHost host = host_of(*source);
  const auto& records = instance(host, 11).accounting->records;
  ASSERT_TRUE(records.has_value());
  ASSERT_EQ(records->size(), 1U);
  EXPECT_EQ(records->front().pid, 100U);  // the running one stays
  EXPECT_EQ(source->clear_vgpu_accounting(12), std::unexpected(Unavailable::error));
}

}  // namespace gpumeter::nvml::vgpu_sim_test
