// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "jetson/nvmap.h"
#include "jetson/sysfs.h"
#include "jetson/thermal.h"

namespace gpumeter::jetson::parsers_test {

TEST(JetsonNvmap, ClientRowsByPidInBytes) {
  const auto clients = parse_nvmap_clients(
      "CLIENT                        PROCESS      PID        SIZE\n"
      "user                         gpu_burn     7979   23525644K\n"
      "user                      gnome_shell     8119       5800K\n"
      "user                         gpu_burn     7979          2M\n"
      "user                            large       12          1G\n"
      "total                                            23549320K\n");
  ASSERT_EQ(clients.size(), 3U);
  EXPECT_EQ(clients[0].pid, 12U);
  EXPECT_EQ(clients[0].bytes, 1ULL << 30U);
  EXPECT_EQ(clients[1].pid, 7979U);
  EXPECT_EQ(clients[1].bytes, (23525644ULL * 1024) + (2ULL << 20U));
  EXPECT_EQ(clients[2].pid, 8119U);
  EXPECT_EQ(clients[2].bytes, 5800ULL * 1024);
}

TEST(JetsonNvmap, MalformedRowsAreSkipped) {
  const auto clients = parse_nvmap_clients(
      "user a 0 5K\nuser b x 5K\nuser c 7 K\nuser d 8 5X\nuser e 9\nuser f 10 "
      "99999999999999999999G\n"
      "user g 11 5K extra\nuser h 12 4096\n");
  ASSERT_EQ(clients.size(), 1U);
  EXPECT_EQ(clients[0].pid, 12U);
  EXPECT_EQ(clients[0].bytes, 4096U);
}

TEST(JetsonMeminfo, TotalAvailableAndNvmapInBytes) {
  const SharedMemory memory = parse_meminfo(
      "MemTotal:        7802652 kB\nMemFree:  1 kB\nMemAvailable:    4987120 kB\n"
      "NvMapMemUsed:    1310720 kB\n");
  EXPECT_EQ(memory.total, 7802652ULL * 1024);
  EXPECT_EQ(memory.available, 4987120ULL * 1024);
  EXPECT_EQ(memory.nvmap_used, 1310720ULL * 1024);
  EXPECT_EQ(parse_meminfo("MemTotal: 1 kB\n").nvmap_used.error(), Unavailable::not_supported);
}

// A scratch root with the files a test writes.
class ScratchRoot : public testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("gpumeter-jetson-" + std::to_string(::getpid()) + "-" +
             testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void write(const std::string& path, const std::string& content) {
    const auto file = root_ / std::filesystem::path(path).relative_path();
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << content;
  }
  std::filesystem::path root_;
};

using JetsonThermal = ScratchRoot;

TEST_F(JetsonThermal, PlaceholdersAndUnreadableZonesAreNoTemperature) {
  write("/sys/class/thermal/thermal_zone0/type", "cv0-thermal\n");
  write("/sys/class/thermal/thermal_zone0/temp", "-256000\n");
  write("/sys/class/thermal/thermal_zone1/type", "gpu-thermal\n");
  write("/sys/class/thermal/thermal_zone1/temp", "\n");  // an empty read: sensor off
  write("/sys/class/thermal/thermal_zone2/type", "PMIC-Die\n");
  write("/sys/class/thermal/thermal_zone2/temp", "100000\n");
  write("/sys/class/thermal/thermal_zone3/type", "cpu-thermal\n");
  write("/sys/class/thermal/thermal_zone3/temp", "46375\n");
  const auto zones = read_thermal_zones(Sysfs(root_));
  ASSERT_EQ(zones.size(), 3U);  // PMIC-Die is skipped
  EXPECT_EQ(zones[0].celsius.error(), Unavailable::error);
  EXPECT_EQ(zones[1].celsius.error(), Unavailable::error);
  EXPECT_DOUBLE_EQ(*zones[2].celsius, 46.375);
  EXPECT_EQ(gpu_temperature(zones).error(), Unavailable::error);
  EXPECT_EQ(gpu_temperature({}).error(), Unavailable::not_supported);
}

using JetsonSysfs = ScratchRoot;

TEST_F(JetsonSysfs, MissingFilesAreNotSupportedAndGarbageIsAnError) {
  write("/sys/a", "12\n");
  write("/sys/b", "12 MHz\n");
  write("/proc/device-tree/model", std::string("Orin\0", 5));
  const Sysfs sysfs(root_);
  EXPECT_EQ(sysfs.integer("/sys/a"), 12);
  EXPECT_EQ(sysfs.integer("/sys/b").error(), Unavailable::error);
  EXPECT_EQ(sysfs.integer("/sys/none").error(), Unavailable::not_supported);
  EXPECT_EQ(sysfs.text("/sys/none/deeper").error(), Unavailable::not_supported);
  EXPECT_EQ(sysfs.text("/proc/device-tree/model"), "Orin");
  EXPECT_EQ(sysfs.text("/sys").error(), Unavailable::error);  // a directory
  EXPECT_TRUE(sysfs.list("/nowhere").empty());
}

}  // namespace gpumeter::jetson::parsers_test
