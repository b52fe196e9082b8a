// SPDX-License-Identifier: MIT
// A process named by `pid_file`: parsed with its rules, and on the simulated GPU exactly while
// the file names a live process, as a process that `gpumeter run` starts writes its own pid
// there after the library was loaded.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/scenario.h"
#include "support/sim_library.h"
#include "support/temp_scenario.h"

namespace gpumeter::sim::testing::pid_file_test {

std::string error_of(const std::string& text) {
  auto parsed = parse_scenario(text, "s.json");
  if (parsed) return "(parsed)";
  return parsed.error().message;
}

std::string scenario_with(const std::string& process) {
  return R"({"devices": [{"name": "G", "memory_total_bytes": 1000000000}], "processes": [)" +
         process + "]}";
}

TEST(PidFileParse, AnAbsolutePathIsKept) {
  auto parsed = parse_scenario(
      scenario_with(R"({"device": 0, "pid_file": "/run/w.pid", "utilization": {"sm": 5}})"),
      "s.json");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(parsed->processes[0].pid_file, "/run/w.pid");
  EXPECT_EQ(parsed->processes[0].pid, 0u);
}

TEST(PidFileParse, BadUsesAreRefusedWithTheirLine) {
  EXPECT_EQ(error_of(scenario_with(R"({"device": 0, "pid_file": "w.pid"})")),
            "s.json:1: processes[0].pid_file: expected an absolute path, found \"w.pid\"");
  EXPECT_EQ(
      error_of(scenario_with(R"({"device": 0, "pid_file": "/w.pid", "pid": 5})")),
      "s.json:1: processes[0].pid_file: expected one of \"pid\", \"pid_env\" or \"pid_file\", "
      "not several");
  EXPECT_NE(
      error_of(
          scenario_with(
              R"({"device": 0, "pid_file": "/w.pid", "host": {"user": "a", "command": ["x"]}})"))
          .find("described by /proc: expected no \"host\""),
      std::string::npos);
  EXPECT_NE(error_of(scenario_with(R"({"device": 0, "pid_file": 7})")).find("s.json:1:"),
            std::string::npos);
}

// A child that waits to be killed.
class Child {
 public:
  Child() : pid_(fork()) {
    if (pid_ == 0) {
      pause();
      _exit(0);
    }
  }
  ~Child() { end(); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  pid_t pid() const { return pid_; }
  void end() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_;
};

class PidFileLibrary : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove(pid_file); }

  void write(const std::string& text) const { std::ofstream(pid_file) << text; }

  // The pids on the compute list of GPU 0.
  std::vector<unsigned> listed(const Session& s) const {
    std::vector<abi::ProcessInfoV2> infos(4);
    unsigned count = 4;
    EXPECT_EQ(s.fn<abi::DeviceProcessesFn>("nvmlDeviceGetComputeRunningProcesses_v3")(
                  s.device(0), &count, infos.data()),
              abi::kSuccess);
    std::vector<unsigned> pids;
    for (unsigned i = 0; i < count; ++i) pids.push_back(infos[i].pid);
    return pids;
  }

  // The pids of GPU 0's per-process utilisation samples.
  std::vector<unsigned> sampled(const Session& s) const {
    std::vector<abi::ProcessUtilizationSample> buffer(100);
    unsigned count = 100;
    const abi::Return result = s.fn<abi::DeviceProcessUtilizationFn>(
        "nvmlDeviceGetProcessUtilization")(s.device(0), buffer.data(), &count, 0);
    std::vector<unsigned> pids;
    if (result != abi::kSuccess) return pids;
    for (unsigned i = 0; i < count; ++i) pids.push_back(buffer[i].pid);
    return pids;
  }

  std::filesystem::path pid_file = std::filesystem::temp_directory_path() /
                                   ("gpumeter-pid-file-test-" + std::to_string(getpid()) + ".pid");
  Child child;
  TempScenario scenario{
      scenario_with(R"({"device": 0, "pid_file": ")" + pid_file.string() +
                    R"(", "used_memory_bytes": 1234, "utilization": {"sm": 40}})")};
};

TEST_F(PidFileLibrary, TheProcessIsOnTheGpuWhileItsFileNamesALiveProcess) {
  ASSERT_GT(child.pid(), 0);
  SimLibrary& lib = SimLibrary::open("sim");
  const Session s(lib, scenario.path(), 10);
  ASSERT_EQ(s.init_result(), abi::kSuccess);
  const auto pid = static_cast<unsigned>(child.pid());

  EXPECT_TRUE(listed(s).empty()) << "no file yet";
  EXPECT_TRUE(sampled(s).empty());
  write("");
  EXPECT_TRUE(listed(s).empty()) << "an empty file, as one being written";
  write("12ab\n");
  EXPECT_TRUE(listed(s).empty()) << "garbage";

  write(std::to_string(pid) + "\n");
  EXPECT_EQ(listed(s), std::vector<unsigned>{pid});
  const std::vector<unsigned> samples = sampled(s);
  ASSERT_FALSE(samples.empty());
  EXPECT_EQ(samples, std::vector<unsigned>(samples.size(), pid));

  child.end();
  EXPECT_TRUE(listed(s).empty()) << "the process has exited";
  EXPECT_TRUE(sampled(s).empty());
}

}  // namespace gpumeter::sim::testing::pid_file_test
