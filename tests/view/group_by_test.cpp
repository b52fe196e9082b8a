// SPDX-License-Identifier: MIT
#include "view/group_by.h"

#include <gtest/gtest.h>

namespace gpumeter::view::group_by_test {

using store::GroupBy;

std::expected<std::vector<GroupBy>, Error> groups(std::vector<std::string> names) {
  return parse_group_by(names);
}

TEST(GroupBy, NamesInTheOrderGiven) {
  EXPECT_EQ(groups({"user", "month"}), (std::vector{GroupBy::user, GroupBy::month}));
  EXPECT_EQ(groups({"day", "gpu", "process", "container", "host"}),
            (std::vector{GroupBy::day, GroupBy::gpu, GroupBy::process, GroupBy::container,
                         GroupBy::host}));
  EXPECT_EQ(groups({}), std::vector<GroupBy>{});
  EXPECT_EQ(group_name(GroupBy::container), "container");
}

TEST(GroupBy, RefusesUnknownRepeatedAndTwoPeriods) {
  EXPECT_EQ(groups({"user", "week"}).error().message,
            "--by: \"week\" is not one of user, gpu, process, container, host, hour, day, month");
  EXPECT_EQ(groups({"user", ""}).error().message,
            "--by: \"\" is not one of user, gpu, process, container, host, hour, day, month");
  EXPECT_EQ(groups({"user", "user"}).error().message, "--by: user is named twice");
  EXPECT_EQ(groups({"day", "month"}).error().message, "--by: at most one of hour, day and month");
}

TEST(GroupBy, MessagesNameTheOptionAsTyped) {
  const std::vector<std::string> names{"week"};
  EXPECT_TRUE(parse_group_by(names, "by").error().message.starts_with("by: \"week\""));
}

}  // namespace gpumeter::view::group_by_test
