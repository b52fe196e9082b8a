// SPDX-License-Identifier: MIT
#include "host/private_directory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace gpumeter::host::private_directory_test {

using Paths = std::vector<std::filesystem::path>;

TEST(DefaultStateDirectories, UnderXdgRuntimeDir) {
  EXPECT_EQ(default_state_directories("/run/user/1000", 1000, "reservations"),
            (Paths{"/run/user/1000/gpumeter", "/run/user/1000/gpumeter/reservations"}));
}

TEST(DefaultStateDirectories, TmpWhenUnsetOrNotAbsolute) {
  const Paths tmp{"/tmp/gpumeter-1000", "/tmp/gpumeter-1000/reservations"};
  EXPECT_EQ(default_state_directories(nullptr, 1000, "reservations"), tmp);
  EXPECT_EQ(default_state_directories("", 1000, "reservations"), tmp);
  EXPECT_EQ(default_state_directories("run/user", 1000, "reservations"), tmp);
}

TEST(EnsurePrivateDirectory, RefusesAFile) {
  auto file =
      std::filesystem::temp_directory_path() / ("gpumeter-not-a-dir-" + std::to_string(::getpid()));
  {
    std::ofstream(file) << "x";
  }
  auto result = ensure_private_directory(file);
  std::filesystem::remove(file);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, ErrorCode::no_permission);
  EXPECT_NE(result.error().message.find("not a directory"), std::string::npos);
}

TEST(EnsurePrivateDirectory, MissingParentIsAnIoError) {
  auto result = ensure_private_directory("/nonexistent-gpumeter-parent/child");
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, ErrorCode::io);
}

}  // namespace gpumeter::host::private_directory_test
