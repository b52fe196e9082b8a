// SPDX-License-Identifier: MIT
#include "nvml/library.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "support/scoped_env.h"

namespace gpumeter::nvml::library_test {

std::string fake(const std::string& variant) {
  // fmt, not chained operator+: g++ 12 reports a false -Warray-bounds on the latter at -O2.
  return fmt::format("{}/{}/libnvidia-ml.so.1", GPUMETER_NVML_FAKE_DIR, variant);
}

using testing::ScopedEnv;

TEST(LibraryPathTest, ConfiguredPathWins) {
  ScopedEnv env("GPUMETER_NVML_LIBRARY", "/from/env.so");
  EXPECT_EQ(resolve_library_path("/configured.so"), "/configured.so");
}

TEST(LibraryPathTest, EnvironmentThenDefault) {
  {
    ScopedEnv env("GPUMETER_NVML_LIBRARY", "/from/env.so");
    EXPECT_EQ(resolve_library_path(""), "/from/env.so");
  }
  {
    ScopedEnv env("GPUMETER_NVML_LIBRARY", "");
    EXPECT_EQ(resolve_library_path(""), "libnvidia-ml.so.1");
  }
  ScopedEnv env("GPUMETER_NVML_LIBRARY", nullptr);
  EXPECT_EQ(resolve_library_path(""), "libnvidia-ml.so.1");
}

TEST(LibraryTest, AbsentLibraryIsLibraryNotFoundWithOneClearLine) {
  const std::string path = "/nonexistent/gpumeter/libnvidia-ml.so.1";
  auto library = Library::open(path);
  ASSERT_FALSE(library.has_value());
  const Error& error = library.error();
  EXPECT_EQ(error.code, ErrorCode::library_not_found);
  EXPECT_TRUE(error.message.starts_with("NVML (" + path + ") could not be loaded: "))
      << error.message;
  EXPECT_NE(error.message.find("No such file"), std::string::npos) << error.message;
  EXPECT_TRUE(error.message.ends_with(
      ". Is the NVIDIA driver installed? Set GPUMETER_NVML_LIBRARY to its path, or use "
      "--simulate."))
      << error.message;
  EXPECT_EQ(error.message.find('\n'), std::string::npos);
}

TEST(LibraryTest, EnvironmentNamesTheLibraryWhenNoPathIsGiven) {
  ScopedEnv env("GPUMETER_NVML_LIBRARY", "/nonexistent/from-env/libnvidia-ml.so.1");
  auto library = Library::open("");
  ASSERT_FALSE(library.has_value());
  EXPECT_NE(library.error().message.find("(/nonexistent/from-env/libnvidia-ml.so.1)"),
            std::string::npos)
      << library.error().message;
}

TEST(LibraryTest, CurrentDriverUsesTheNewestSymbols) {
  auto library = Library::open(fake("current"));
  ASSERT_TRUE(library.has_value()) << library.error().message;
  const EntryPoints& api = library->api();
  EXPECT_STREQ(api.init.symbol, "nvmlInit_v2");
  EXPECT_STREQ(api.device_count.symbol, "nvmlDeviceGetCount_v2");
  EXPECT_STREQ(api.handle_by_index.symbol, "nvmlDeviceGetHandleByIndex_v2");
  EXPECT_EQ(api.compute_processes.found, 0);
  EXPECT_STREQ(api.compute_processes.symbol, "nvmlDeviceGetComputeRunningProcesses_v3");
  EXPECT_EQ(process_element_size(api.compute_processes), 24u);
  EXPECT_FALSE(library->avoided_v3_stride());
  EXPECT_EQ(library->path(), fake("current"));
}

TEST(LibraryTest, MissingSymbolsAreAbsentEntriesNotFailures) {
  auto library = Library::open(fake("current"));
  ASSERT_TRUE(library.has_value()) << library.error().message;
  const EntryPoints& api = library->api();
  EXPECT_FALSE(api.memory_info_v2);
  EXPECT_EQ(api.memory_info_v2.found, -1);
  EXPECT_EQ(api.memory_info_v2.symbol, nullptr);
  EXPECT_FALSE(api.temperature_v);
  EXPECT_EQ(process_element_size(Entry<abi::DeviceProcessesFn>{}), 0u);
}

TEST(LibraryTest, Driver535WindowUsesV2ProcessCalls) {
  auto library = Library::open(fake("r535_window"));
  ASSERT_TRUE(library.has_value()) << library.error().message;
  const EntryPoints& api = library->api();
  EXPECT_TRUE(library->avoided_v3_stride());
  EXPECT_STREQ(api.compute_processes.symbol, "nvmlDeviceGetComputeRunningProcesses_v2");
  EXPECT_STREQ(api.graphics_processes.symbol, "nvmlDeviceGetGraphicsRunningProcesses_v2");
  EXPECT_STREQ(api.mps_processes.symbol, "nvmlDeviceGetMPSComputeRunningProcesses_v2");
  EXPECT_EQ(api.compute_processes.found, 1);
  EXPECT_EQ(process_element_size(api.compute_processes), 24u);
}

TEST(LibraryTest, Driver535WindowWithoutV2FallsToV1) {
  auto library = Library::open(fake("r535_window_no_v2"));
  ASSERT_TRUE(library.has_value()) << library.error().message;
  const EntryPoints& api = library->api();
  EXPECT_STREQ(api.compute_processes.symbol, "nvmlDeviceGetComputeRunningProcesses");
  EXPECT_EQ(api.compute_processes.found, 2);
  EXPECT_EQ(process_element_size(api.compute_processes), 16u);
}

TEST(LibraryTest, LegacyDriverUsesV1Everywhere) {
  auto library = Library::open(fake("legacy"));
  ASSERT_TRUE(library.has_value()) << library.error().message;
  const EntryPoints& api = library->api();
  EXPECT_STREQ(api.init.symbol, "nvmlInit");
  EXPECT_EQ(api.init.found, 1);
  EXPECT_STREQ(api.device_count.symbol, "nvmlDeviceGetCount");
  EXPECT_STREQ(api.handle_by_index.symbol, "nvmlDeviceGetHandleByIndex");
  EXPECT_EQ(process_element_size(api.compute_processes), 16u);
  EXPECT_EQ(process_element_size(api.graphics_processes), 16u);
  EXPECT_FALSE(api.process_detail_list);
  EXPECT_FALSE(library->avoided_v3_stride());
}

TEST(LibraryTest, CountAndHandleAreNeverMixed) {
  auto library = Library::open(fake("count_v2_handle_v1"));
  ASSERT_TRUE(library.has_value()) << library.error().message;
  const EntryPoints& api = library->api();
  EXPECT_STREQ(api.device_count.symbol, "nvmlDeviceGetCount");
  EXPECT_STREQ(api.handle_by_index.symbol, "nvmlDeviceGetHandleByIndex");
}

TEST(LibraryTest, NoPairOfOneVersionIsUnusable) {
  auto library = Library::open(fake("unpairable"));
  ASSERT_FALSE(library.has_value());
  EXPECT_EQ(library.error().code, ErrorCode::library_not_found);
  EXPECT_NE(library.error().message.find("nvmlDeviceGetCount and nvmlDeviceGetHandleByIndex"),
            std::string::npos)
      << library.error().message;
}

TEST(LibraryTest, LibraryWithoutInitIsUnusable) {
  auto library = Library::open(fake("no_init"));
  ASSERT_FALSE(library.has_value());
  EXPECT_EQ(library.error().code, ErrorCode::library_not_found);
  EXPECT_NE(library.error().message.find("nvmlInit_v2 or nvmlInit"), std::string::npos)
      << library.error().message;
  EXPECT_EQ(library.error().message.find('\n'), std::string::npos);
}

TEST(LibraryTest, MoveKeepsTheTableAndEmptiesTheSource) {
  auto opened = Library::open(fake("current"));
  ASSERT_TRUE(opened.has_value()) << opened.error().message;
  Library moved = std::move(*opened);
  EXPECT_TRUE(moved.api().init);
  EXPECT_FALSE(opened->api().init);  // NOLINT(bugprone-use-after-move): checking the state
  auto other = Library::open(fake("legacy"));
  ASSERT_TRUE(other.has_value()) << other.error().message;
  *other = std::move(moved);
  EXPECT_STREQ(other->api().init.symbol, "nvmlInit_v2");
  EXPECT_EQ(other->path(), fake("current"));
}

}  // namespace gpumeter::nvml::library_test
