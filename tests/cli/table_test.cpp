// SPDX-License-Identifier: MIT
#include "cli/table.h"

#include <gtest/gtest.h>

#include <array>

namespace gpumeter::cli::table_test {

const std::array<Column, 3> kColumns{{{"ID", Align::right}, {"NAME"}, {"NOTE"}}};

TEST(Table, ColumnsAreSizedToTheWidestCellAndTrailingBlanksTrimmed) {
  const std::vector<Row> rows{{{"1"}, {"alpha"}, {""}}, {{"12"}, {"b"}, {"x"}}};
  EXPECT_EQ(render_table(kColumns, rows, false),
            "ID  NAME   NOTE\n"
            " 1  alpha\n"
            "12  b      x\n");
}

TEST(Table, ShortRowsArePadded) {
  const std::vector<Row> rows{{{"7"}}};
  EXPECT_EQ(render_table(kColumns, rows, false), "ID  NAME  NOTE\n 7\n");
}

TEST(Table, ColoursDoNotUpsetAlignment) {
  const std::vector<Row> rows{{{"1", Color::green}, {"a"}, {"b"}}};
  EXPECT_EQ(render_table(kColumns, rows, true),
            "\x1b[1mID\x1b[0m  \x1b[1mNAME\x1b[0m  \x1b[1mNOTE\x1b[0m\n"
            " \x1b[32m1\x1b[0m  a     b\n");
}

TEST(Table, WidthCountsCodePointsNotBytes) {
  const std::vector<Row> rows{{{"1"}, {"Grüße"}, {"x"}}};
  EXPECT_EQ(render_table(kColumns, rows, false), "ID  NAME   NOTE\n 1  Grüße  x\n");
}

}  // namespace gpumeter::cli::table_test
