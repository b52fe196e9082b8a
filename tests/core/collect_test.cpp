// SPDX-License-Identifier: MIT
#include "core/collect.h"

#include <gtest/gtest.h>

namespace gpumeter::collect_test {

class TwoProcessesOnOneGpu final : public GpuSource {
 public:
  std::string_view name() const noexcept override { return "fake"; }
  std::expected<GpuReading, Error> read() override {
    ++reads;
    GpuReading reading;
    Device device;
    device.processes = std::vector<GpuProcess>{{.pid = 10}, {.pid = 20}};
    Device second;
    second.identity.index = 1;
    second.processes = std::vector<GpuProcess>{{.pid = 10}};
    reading.devices = {device, second};
    return reading;
  }
  int reads = 0;
};

class FailingSource final : public GpuSource {
 public:
  std::string_view name() const noexcept override { return "failing"; }
  std::expected<GpuReading, Error> read() override {
    return std::unexpected(Error{ErrorCode::driver_failed, "gone"});
  }
};

class CountingHost final : public ProcessSource {
 public:
  Maybe<HostProcess> describe(Pid pid) override {
    ++calls;
    if (pid == 20) return std::unexpected(Unavailable::no_permission);
    HostProcess process;
    process.pid = pid;
    process.user = std::string("alice");
    return process;
  }
  int calls = 0;
};

TEST(Collect, DescribesEachProcessOnce) {
  TwoProcessesOnOneGpu gpus;
  CountingHost host;
  auto snapshot = collect(gpus, host, {.hostname = "h", .source_label = "fake"}, 1234);
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_EQ(host.calls, 2);
  EXPECT_EQ(snapshot->time_us, 1234);
  EXPECT_EQ(snapshot->hostname, "h");
  ASSERT_EQ(snapshot->processes.size(), 2U);
  EXPECT_EQ(snapshot->processes.at(10)->user, "alice");
  EXPECT_EQ(snapshot->processes.at(20).error(), Unavailable::no_permission);
}

TEST(Collect, PassesSourceErrorsThrough) {
  FailingSource gpus;
  CountingHost host;
  auto snapshot = collect(gpus, host, {}, 0);
  ASSERT_FALSE(snapshot.has_value());
  EXPECT_EQ(snapshot.error().code, ErrorCode::driver_failed);
  EXPECT_EQ(exit_status(snapshot.error()), 2);
}

}  // namespace gpumeter::collect_test
