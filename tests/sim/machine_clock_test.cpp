// SPDX-License-Identifier: MIT
// The machine's clock file protocol in one process (each hold is its own open file, as in
// separate processes): the first loader's epoch is shared while anyone holds it, the last
// holder removes the files, and a directory others may write is not trusted.
#include "sim/machine_clock.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <optional>

#include "sim/clock.h"
#include "support/scoped_env.h"
#include "support/temp_dir.h"

namespace gpumeter::sim::machine_clock_test {

using gpumeter::nvml::testing::ScopedEnv;
using gpumeter::testing::TempDir;

class MachineClock : public ::testing::Test {
 protected:
  TempDir runtime;
  ScopedEnv xdg{"XDG_RUNTIME_DIR", runtime.path().c_str()};
  ScopedEnv no_epoch{kEpochVariable, nullptr};
  ScopedEnv no_now{kNowVariable, nullptr};
  std::filesystem::path scenario = runtime.path() / "a.json";

  std::size_t files() const {
    const auto dir = runtime.path() / "gpumeter-sim";
    if (!std::filesystem::exists(dir)) return 0;
    return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(dir),
                                                  std::filesystem::directory_iterator()));
  }
};

TEST_F(MachineClock, TheFirstLoaderSetsItBackByTheLeadAndOthersShareIt) {
  const std::int64_t before = now_us();
  std::optional<MachineEpoch> first = machine_epoch(scenario, 20);
  const std::int64_t after = now_us();
  ASSERT_TRUE(first->warning.empty()) << first->warning;
  EXPECT_GE(first->epoch_us, before - 20'000'000);
  EXPECT_LE(first->epoch_us, after - 20'000'000);
  EXPECT_EQ(files(), 2U);  // the clock and its guard
  std::optional<MachineEpoch> second = machine_epoch(scenario, 5);
  EXPECT_EQ(second->epoch_us, first->epoch_us);
  first.reset();  // the second still holds it
  EXPECT_EQ(files(), 2U);
  std::optional<MachineEpoch> third = machine_epoch(scenario, 5);
  EXPECT_EQ(third->epoch_us, second->epoch_us);
  second.reset();
  third.reset();
  EXPECT_EQ(files(), 0U) << "the last holder removes the files";
  // Nobody holds it now: a new timeline, with this loader's lead.
  const MachineEpoch fresh = machine_epoch(scenario, 5);
  EXPECT_GE(fresh.epoch_us, after - 5'000'000);
}

TEST_F(MachineClock, AnotherScenarioHasAClockOfItsOwn) {
  const MachineEpoch a = machine_epoch(scenario, 20);
  const MachineEpoch b = machine_epoch(runtime.path() / "b.json", 0);
  EXPECT_GT(b.epoch_us - a.epoch_us, 19'000'000);
}

TEST_F(MachineClock, AFixedEpochWinsAndSharesNothing) {
  const ScopedEnv fixed{kEpochVariable, "1700000000000000"};
  const MachineEpoch epoch = machine_epoch(scenario, 20);
  EXPECT_EQ(epoch.epoch_us, 1'700'000'000'000'000);
  EXPECT_EQ(files(), 0U);
}

TEST_F(MachineClock, ADirectoryOthersMayWriteIsNotTrusted) {
  const auto dir = runtime.path() / "gpumeter-sim";
  std::filesystem::create_directory(dir);
  ::chmod(dir.c_str(), 0777);
  const MachineEpoch epoch = machine_epoch(scenario, 20);
  EXPECT_NE(epoch.warning.find("not a private directory"), std::string::npos) << epoch.warning;
  EXPECT_EQ(files(), 0U);
  EXPECT_LE(epoch.epoch_us, now_us() - 20'000'000);  // still the first loader's rule
}

}  // namespace gpumeter::sim::machine_clock_test
