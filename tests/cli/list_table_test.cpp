// SPDX-License-Identifier: MIT
#include "cli/list_table.h"

#include <gtest/gtest.h>
#include <stdlib.h>  // setenv: POSIX

#include <ctime>
#include <sstream>

#include "support/sample_snapshot.h"

namespace gpumeter::cli::list_table_test {

using testing::sample_snapshot;

class ListTable : public ::testing::Test {
 protected:
  // The header shows local time: pin the zone.
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }

  static std::size_t count(const std::string& text, const std::string& word) {
    std::size_t n = 0;
    for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
  }

  static std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
};

TEST_F(ListTable, HeaderNamesHostDriverCudaAndTime) {
  const auto out = lines(render_list_table(sample_snapshot(), false));
  EXPECT_EQ(out[0], "node1  driver 535.104.05  CUDA 12.2  2024-05-01 12:00:00");
}

TEST_F(ListTable, OneRowPerGpuWithItsMarker) {
  const auto out = lines(render_list_table(sample_snapshot(), false));
  ASSERT_EQ(out.size(), 7U);  // header line, column headers, five GPUs
  EXPECT_EQ(out[1].substr(0, 5), "GPU  ");
  EXPECT_EQ(out[2].substr(0, 8), "  0  [ ]");
  EXPECT_EQ(out[3].substr(0, 8), "  1  [~]");
  EXPECT_EQ(out[4].substr(0, 8), "  2  [!]");
  EXPECT_EQ(out[5].substr(0, 9), "  3  lost");
  EXPECT_EQ(out[6].substr(0, 8), "  4  [?]");
}

TEST_F(ListTable, BusyRowShowsReadingsUsersSincePidsAndCommands) {
  const auto out = lines(render_list_table(sample_snapshot(), false));
  const std::string& row = out[3];
  for (const char* expected :
       {"Tesla V100-SXM2-16GB", "100%", "893MiB / 16.0GiB", "35C", "43W / 300W", "1530MHz",
        "alice,bob", "3h 12m", "4242,4343", "train.py,jupyter"}) {
    EXPECT_NE(row.find(expected), std::string::npos) << expected << " in " << row;
  }
}

TEST_F(ListTable, FreeRowHasNoUsers) {
  const auto out = lines(render_list_table(sample_snapshot(), false));
  EXPECT_EQ(out[2].find("alice"), std::string::npos);
  EXPECT_EQ(out[2].back(), 'z');  // ends at the SM clock: nothing after "1530MHz"
}

TEST_F(ListTable, AbsentValuesPrintNa) {
  const auto out = lines(render_list_table(sample_snapshot(), false));
  // The lost GPU: every reading N/A, but its name is still known.
  EXPECT_NE(out[5].find("Tesla V100"), std::string::npos);
  EXPECT_EQ(count(out[5], "N/A"), 9U) << out[5];
  // The hidden owner: user "?", command N/A, since unknown.
  EXPECT_NE(out[4].find("?"), std::string::npos);
  EXPECT_NE(out[4].find("N/A"), std::string::npos);
  EXPECT_NE(out[6].find("N/A"), std::string::npos);
}

TEST_F(ListTable, ColoursByStatus) {
  const std::string out = render_list_table(sample_snapshot(), true);
  EXPECT_NE(out.find("\x1b[32m[ ]\x1b[0m"), std::string::npos);
  EXPECT_NE(out.find("\x1b[34m[~]\x1b[0m"), std::string::npos);
  EXPECT_NE(out.find("\x1b[31m[!]\x1b[0m"), std::string::npos);
  EXPECT_NE(out.find("\x1b[31mlost\x1b[0m"), std::string::npos);
}

TEST_F(ListTable, NoColoursMeansNoEscapes) {
  EXPECT_EQ(render_list_table(sample_snapshot(), false).find('\x1b'), std::string::npos);
}

// A vGPU host GPU gets one line below the table naming its VMs; bare-metal GPUs none.
TEST_F(ListTable, AVgpuHostGetsOneLineBelowTheTable) {
  Snapshot snapshot = sample_snapshot();
  const std::size_t bare = lines(render_list_table(snapshot, false)).size();
  VgpuInstance desktop;
  desktop.id = 101;
  desktop.vm_id = "vm-a";
  desktop.type_name = "NVIDIA A16-4Q";
  desktop.fb_used_bytes = 1536ULL << 20;
  desktop.utilization = VgpuUtilization{.sm = 61.4};
  VgpuInstance no_driver;
  no_driver.id = 202;
  no_driver.fb_used_bytes = std::unexpected(Unavailable::error);
  snapshot.gpus.devices.at(1).vgpu = VgpuHost{.instances = {desktop, no_driver}};
  const auto out = lines(render_list_table(snapshot, false));
  ASSERT_EQ(out.size(), bare + 1);
  EXPECT_EQ(out.back(),
            "GPU 1: vGPU host, 2 VMs: vm-a (NVIDIA A16-4Q, SM 61%, FB 1.5GiB), instance 202 (N/A, "
            "SM N/A, FB N/A); gpumeter vgpu shows more");
}

TEST_F(ListTable, ZeroGpusShowHeaderEmptyTableAndNote) {
  Snapshot snapshot = sample_snapshot();
  snapshot.gpus.devices.clear();
  const auto out = lines(render_list_table(snapshot, false));
  ASSERT_EQ(out.size(), 3U);
  EXPECT_EQ(out[1].substr(0, 3), "GPU");
  EXPECT_EQ(out[2], "no GPUs found");
}

TEST_F(ListTable, UnknownDriverVersionsPrintNa) {
  Snapshot snapshot = sample_snapshot();
  snapshot.gpus.driver = DriverInfo{};
  EXPECT_EQ(lines(render_list_table(snapshot, false))[0],
            "node1  driver N/A  CUDA N/A  2024-05-01 12:00:00");
}

}  // namespace gpumeter::cli::list_table_test
