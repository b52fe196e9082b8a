// SPDX-License-Identifier: MIT
// A scenario written to a temporary file for one test, removed afterwards.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace gpumeter::sim::testing {

class TempScenario {
 public:
  explicit TempScenario(std::string_view text) {
    std::string name =
        (std::filesystem::temp_directory_path() / "gpumeter-sim-test-XXXXXX.json").string();
    const int fd = mkstemps(name.data(), 5);
    if (fd >= 0) close(fd);
    path_ = name;
    std::ofstream(path_) << text;
  }
  ~TempScenario() {
    std::error_code ignored;  // best effort: a leftover temp file harms nothing
    std::filesystem::remove(path_, ignored);
  }
  TempScenario(const TempScenario&) = delete;
  TempScenario& operator=(const TempScenario&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::filesystem::path example_scenario(std::string_view name) {
  return std::filesystem::path(GPUMETER_TEST_SCENARIO_DIR) / (std::string(name) + ".json");
}

}  // namespace gpumeter::sim::testing
