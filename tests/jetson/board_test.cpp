// SPDX-License-Identifier: MIT
#include "jetson/board.h"

#include <gtest/gtest.h>

namespace gpumeter::jetson::board_test {

TEST(JetsonBoard, ReleaseFromTheFirstLineOfNvTegraRelease) {
  EXPECT_EQ(parse_l4t_release("# R32 (release), REVISION: 7.1, GCID: 29818004, BOARD: t210ref, "
                              "EABI: aarch64, DATE: Sat Feb 19 17:05:08 UTC 2022\n"),
            "32.7.1");
  EXPECT_EQ(parse_l4t_release("# R36 (release), REVISION: 4.7, GCID: 42132812, BOARD: generic, "
                              "EABI: aarch64, DATE: x\n# KERNEL_VARIANT: oot\n"),
            "36.4.7");
  // A release no table knows reads the same way.
  EXPECT_EQ(parse_l4t_release("# R41 (release), REVISION: 0.2, GCID: 1\n"), "41.0.2");
}

TEST(JetsonBoard, AReleaseLineOfAnotherShapeIsNotGuessed) {
  for (const char* text :
       {"", "R36 REVISION: 4.7", "# R36 (release), GCID: 1", "# Rx (release), REVISION: 4.7,",
        "# R36 (release), REVISION: ,", "# R36 (release), REVISION: 4.7beta, GCID: 1",
        "\n# R36 (release), "
        "REVISION: 4.7"}) {
    EXPECT_EQ(parse_l4t_release(text), std::nullopt) << text;
  }
}

TEST(JetsonBoard, SocIsTheLastCompatibleEntryLessItsVendor) {
  using namespace std::string_view_literals;
  EXPECT_EQ(soc_of("nvidia,p3737-0000+p3701-0000\0nvidia,p3701-0000\0nvidia,tegra234\0"sv),
            "tegra234");
  EXPECT_EQ(soc_of("nvidia,tegra210"sv), "tegra210");
  EXPECT_EQ(soc_of(""sv), "");
}

}  // namespace gpumeter::jetson::board_test
