// SPDX-License-Identifier: MIT
// A simulated machine for the sampler's truth tests: the NVML backend opened through the real
// loader on the simulated libnvidia-ml.so.1, the scenario's host view over the real procfs,
// and the simulator's clock, which the test steps.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/sampler.h"
#include "host/procfs.h"
#include "nvml/backend.h"
#include "sim/scenario_host.h"
#include "support/scoped_env.h"

namespace gpumeter::testing {

// The host view of a pid whose processes come and go: while scenario time lies in one of
// `lives` ([start, end) in seconds) the pid is a process that started at that life's start;
// between lives it does not exist. Other pids are answered by `rest`.
class PidLivesHost final : public ProcessSource {
 public:
  using Life = std::pair<double, double>;
  PidLivesHost(Pid pid, std::vector<Life> lives, std::unique_ptr<ProcessSource> rest,
               const double& now_s, std::int64_t epoch_us)
      : pid_(pid),
        lives_(std::move(lives)),
        rest_(std::move(rest)),
        now_s_(now_s),
        epoch_us_(epoch_us) {}

  Maybe<HostProcess> describe(Pid pid) override {
    if (pid != pid_) return rest_->describe(pid);
    for (const auto& [start, end] : lives_) {
      if (now_s_ < start || now_s_ >= end) continue;
      HostProcess process;
      process.pid = pid;
      process.start_time_us = epoch_us_ + static_cast<TimeUs>(start * 1e6);
      return process;
    }
    return std::unexpected(Unavailable::process_gone);
  }

 private:
  Pid pid_;
  std::vector<Life> lives_;
  std::unique_ptr<ProcessSource> rest_;
  const double& now_s_;
  std::int64_t epoch_us_;
};

class SimulatedMachine : public ::testing::Test {
 protected:
  static constexpr std::int64_t kEpochUs = 1'700'000'000'000'000;

  void TearDown() override {
    gpus_.reset();
    std::error_code ignored;  // best effort: a leftover temp file harms nothing
    if (!written_.empty()) std::filesystem::remove(written_, ignored);
  }

  // Opens the machine on a scenario given as text, at scenario time 0.
  void open(std::string_view json) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    written_ = std::filesystem::temp_directory_path() /
               fmt::format("gpumeter-sampler-{}-{}.json", ::getpid(), info->name());
    std::ofstream(written_) << json;
    open_file(written_);
  }

  // Opens the machine on a bundled example scenario (examples/scenarios/NAME.json).
  void open_example(std::string_view name) {
    open_file(std::filesystem::path(GPUMETER_TEST_SCENARIO_DIR) / fmt::format("{}.json", name));
  }

  // As open(), with the simulator on the wall clock and its epoch now.
  void open_on_wall_clock(std::string_view json) {
    using namespace std::chrono;
    epoch_.set(
        std::to_string(duration_cast<microseconds>(system_clock::now().time_since_epoch()).count())
            .c_str());
    wall_clock_ = true;
    open(json);
  }

  // The host answers `pid` from its lives (see PidLivesHost) from now on.
  void use_host_script(Pid pid, std::vector<PidLivesHost::Life> lives) {
    host_ =
        std::make_unique<PidLivesHost>(pid, std::move(lives), std::move(host_), now_s_, kEpochUs);
  }

  GpuSource& gpus() { return *gpus_; }
  ProcessSource& host() { return *host_; }

  static TimeUs time_us(double t_s) {
    return kEpochUs + static_cast<TimeUs>(std::llround(t_s * 1e6));
  }

  // Moves the simulator's clock to scenario time t (seconds).
  void at(double t_s) {
    now_s_ = t_s;
    now_.set(std::to_string(time_us(t_s)).c_str());
  }

  // Rounds at every whole second from `from_s` to `to_s`, the clock moved to each first, and
  // between them the drains the sampler's thread makes (Sampler::drain_every()).
  void run(Sampler& sampler, int from_s, int to_s) {
    for (int t = from_s; t <= to_s; ++t) {
      at(t);
      auto done = sampler.sample_once(time_us(t));
      ASSERT_TRUE(done.has_value()) << "t = " << t << ": " << done.error().message;
      if (t < to_s) drain_between(sampler, time_us(t), time_us(t + 1));
    }
  }

  // The drains between a round at `from_us` and the next at `to_us`, as the sampler's thread
  // spaces them.
  void drain_between(Sampler& sampler, TimeUs from_us, TimeUs to_us) {
    const TimeUs every = sampler.drain_every().count();
    if (every <= 0) return;
    for (TimeUs s = from_us + every; s + every / 2 < to_us; s += every) {
      at(static_cast<double>(s - kEpochUs) / 1e6);
      sampler.drain_between_rounds(s);
    }
  }

  static ProcessKey key(const Sampler& sampler, Pid pid) {
    auto found = sampler.key_for(pid);
    if (!found) ADD_FAILURE() << "no process " << pid;
    return found.value_or(ProcessKey{pid, 0});
  }

  // What `key` used on its one GPU in [begin_s, end_s].
  static GpuUsage gpu_usage(const Sampler& sampler, const ProcessKey& key, double begin_s,
                            double end_s) {
    auto used = sampler.usage(std::span(&key, 1), Window{time_us(begin_s), time_us(end_s)});
    if (!used || used->gpus.size() != 1) {
      ADD_FAILURE() << "no usage on exactly one GPU for pid " << key.pid;
      return GpuUsage{};
    }
    return used->gpus.front();
  }

 private:
  void open_file(const std::filesystem::path& scenario) {
    scenario_.set(scenario.c_str());
    if (!wall_clock_) at(0);
    auto gpus = nvml::open_nvml_source({GPUMETER_SIM_LIBRARY});
    ASSERT_TRUE(gpus.has_value()) << gpus.error().message;
    gpus_ = std::move(*gpus);
    auto host = sim::open_scenario_host(scenario, std::make_unique<host::ProcfsProcessSource>());
    ASSERT_TRUE(host.has_value()) << host.error().message;
    host_ = std::move(*host);
  }

  nvml::testing::ScopedEnv scenario_{"GPUMETER_SIM_SCENARIO", nullptr};
  nvml::testing::ScopedEnv epoch_{"GPUMETER_SIM_EPOCH_US", std::to_string(kEpochUs).c_str()};
  nvml::testing::ScopedEnv now_{"GPUMETER_SIM_NOW_US", nullptr};
  nvml::testing::ScopedEnv worker_{"GPUMETER_WORKER_PID", nullptr};
  std::filesystem::path written_;
  bool wall_clock_ = false;
  double now_s_ = 0;
  std::unique_ptr<GpuSource> gpus_;
  std::unique_ptr<ProcessSource> host_;
};

}  // namespace gpumeter::testing
