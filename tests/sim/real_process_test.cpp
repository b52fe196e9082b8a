// SPDX-License-Identifier: MIT
// A real process, spawned by the test and named in the scenario through pid_env, appears
// on the simulated GPU; lookups NVML makes about it (its name) read the real /proc.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>  // setenv, unsetenv: POSIX
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "sim/scenario_host.h"
#include "support/sim_library.h"
#include "support/temp_scenario.h"

namespace gpumeter::sim::testing::real_process_test {

constexpr const char* kScenario = R"({
  "devices": [{"name": "G", "memory_total_bytes": 1000000000}],
  "processes": [{"device": 0, "pid_env": "GPUMETER_TEST_CHILD_PID", "used_memory_bytes": 1234,
                 "utilization": {"sm": 50}}]
})";

// A child that waits to be killed.
class Child {
 public:
  Child() : pid_(fork()) {
    if (pid_ == 0) {
      pause();
      _exit(0);
    }
  }
  ~Child() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};

std::string argv0_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string first;
  std::getline(in, first, '\0');
  return first;
}

class RealProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_GT(child.pid(), 0);
    setenv("GPUMETER_TEST_CHILD_PID", std::to_string(child.pid()).c_str(), 1);
  }
  void TearDown() override { unsetenv("GPUMETER_TEST_CHILD_PID"); }

  Child child;
  TempScenario scenario{kScenario};
};

TEST_F(RealProcessTest, TheSpawnedProcessIsOnTheGpu) {
  SimLibrary& lib = SimLibrary::open("sim");
  const Session s(lib, scenario.path());
  ASSERT_EQ(s.init_result(), abi::kSuccess);
  std::vector<abi::ProcessInfoV2> infos(4);
  unsigned count = 4;
  ASSERT_EQ(s.fn<abi::DeviceProcessesFn>("nvmlDeviceGetComputeRunningProcesses_v3")(
                s.device(0), &count, infos.data()),
            abi::kSuccess);
  ASSERT_EQ(count, 1u);
  EXPECT_EQ(infos[0].pid, static_cast<std::uint32_t>(child.pid()));
  EXPECT_EQ(infos[0].used_gpu_memory, 1234u);
  char name[256] = {};
  ASSERT_EQ(s.fn<abi::ProcessNameFn>("nvmlSystemGetProcessName")(static_cast<unsigned>(child.pid()),
                                                                 name, sizeof name),
            abi::kSuccess);
  EXPECT_EQ(name, argv0_of(child.pid()));  // read from the real /proc
}

// The host side falls through to the real-process reader for a pid without "host".
class RecordingSource final : public ProcessSource {
 public:
  Maybe<HostProcess> describe(Pid pid) override {
    asked.push_back(pid);
    return std::unexpected(Unavailable::process_gone);
  }
  std::vector<Pid> asked;
};

TEST_F(RealProcessTest, HostLookupsGoToTheRealReader) {
  auto fallback = std::make_unique<RecordingSource>();
  RecordingSource* recording = fallback.get();
  auto host = open_scenario_host(scenario.path(), std::move(fallback));
  ASSERT_TRUE(host.has_value()) << host.error().message;
  (void)(*host)->describe(static_cast<Pid>(child.pid()));
  EXPECT_EQ(recording->asked, std::vector<Pid>{static_cast<Pid>(child.pid())});
}

}  // namespace gpumeter::sim::testing::real_process_test
