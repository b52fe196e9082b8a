// SPDX-License-Identifier: MIT
#include "host/user_names.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace gpumeter::host::user_names_test {

constexpr const char* kPasswd =
    "root:x:0:0:root:/root:/bin/bash\n"
    "# comment:x:5:5\n"
    "alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n"
    "broken line\n"
    ":x:1003:1003::/:/bin/sh\n"
    "bob:x:1001:1001::/home/bob:/bin/zsh";

TEST(FindPasswdName, MatchesTheUidField) {
  EXPECT_EQ(find_passwd_name(kPasswd, 0), "root");
  EXPECT_EQ(find_passwd_name(kPasswd, 1000), "alice");
  EXPECT_EQ(find_passwd_name(kPasswd, 1001), "bob");  // last line without newline
}

TEST(FindPasswdName, SkipsCommentsBrokenAndNamelessLines) {
  EXPECT_FALSE(find_passwd_name(kPasswd, 5));
  EXPECT_FALSE(find_passwd_name(kPasswd, 1003));
  EXPECT_FALSE(find_passwd_name(kPasswd, 4242));
  EXPECT_FALSE(find_passwd_name("", 0));
}

const std::filesystem::path kFixtureRoot = GPUMETER_HOST_FIXTURES "/root";

TEST(UserNames, ReadsTheRootsPasswd) {
  UserNames names(kFixtureRoot);
  EXPECT_EQ(names.name(1002), "carol");
  EXPECT_EQ(names.name(1002), "carol");  // cached
  EXPECT_FALSE(names.name(2000));
}

TEST(UserNames, MissingPasswdMeansUnknownUsers) {
  UserNames names(std::filesystem::path(GPUMETER_HOST_FIXTURES) / "no-such-root");
  EXPECT_FALSE(names.name(0));
}

TEST(SystemUserName, KnowsRoot) {
  EXPECT_EQ(system_user_name(0), "root");
}

TEST(UserNames, LiveSystemAgreesWithTheNameService) {
  auto expected = system_user_name(getuid());
  if (!expected) GTEST_SKIP() << "uid " << getuid() << " has no name on this system";
  UserNames names("/");
  EXPECT_EQ(names.name(getuid()), expected);
}

}  // namespace gpumeter::host::user_names_test
