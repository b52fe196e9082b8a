// SPDX-License-Identifier: MIT
// Opens the NVML backend on the simulated libnvidia-ml.so.1 through the real dlopen path,
// with a scenario written by the test and the simulator's clock frozen at a chosen time.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>

#include "nvml/backend.h"
#include "support/scoped_env.h"

namespace gpumeter::nvml::testing {

// The library builds, from the test's compile definitions.
inline constexpr const char* kSimLibrary = GPUMETER_SIM_LIBRARY;
inline constexpr const char* kSimR535Library = GPUMETER_SIM_R535_LIBRARY;
inline constexpr const char* kSimLegacyLibrary = GPUMETER_SIM_LEGACY_LIBRARY;

class SimBackendTest : public ::testing::Test {
 protected:
  static constexpr std::int64_t kEpochUs = 1'700'000'000'000'000;

  void TearDown() override {
    std::error_code ignored;
    if (!scenario_path_.empty()) std::filesystem::remove(scenario_path_, ignored);
  }

  // Writes `json` as this test's scenario and opens the backend on `library` at time t.
  std::unique_ptr<GpuSource> open(std::string_view json, double t_s = 0,
                                  const char* library = kSimLibrary) {
    write_scenario(json);
    at(t_s);
    auto source = open_nvml_source({library});
    if (!source) ADD_FAILURE() << source.error().message;
    return source ? std::move(*source) : nullptr;
  }

  // Moves the simulator's clock to scenario time t (seconds after the epoch).
  void at(double t_s) {
    now_.set(std::to_string(kEpochUs + static_cast<std::int64_t>(t_s * 1e6)).c_str());
  }

  void write_scenario(std::string_view json) {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    scenario_path_ = std::filesystem::temp_directory_path() /
                     fmt::format("gpumeter-nvml-{}-{}-{}.json", ::getpid(), info->test_suite_name(),
                                 info->name());
    std::ofstream(scenario_path_) << json;
    scenario_.set(scenario_path_.c_str());
  }

 private:
  std::filesystem::path scenario_path_;
  ScopedEnv scenario_{"GPUMETER_SIM_SCENARIO", nullptr};
  ScopedEnv epoch_{"GPUMETER_SIM_EPOCH_US", std::to_string(kEpochUs).c_str()};
  ScopedEnv now_{"GPUMETER_SIM_NOW_US", nullptr};
};

}  // namespace gpumeter::nvml::testing
