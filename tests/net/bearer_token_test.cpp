// SPDX-License-Identifier: MIT
#include "net/bearer_token.h"

#include <gtest/gtest.h>

namespace gpumeter::net::bearer_token_test {

TEST(BearerToken, TakesTheTokenAfterTheScheme) {
  EXPECT_EQ(bearer_token("Bearer abc.def"), "abc.def");
  EXPECT_EQ(bearer_token("bearer   abc "), "abc");
  EXPECT_EQ(bearer_token("BEARER x"), "x");
}

TEST(BearerToken, EmptyForOtherForms) {
  EXPECT_EQ(bearer_token(""), "");
  EXPECT_EQ(bearer_token("Bearer"), "");
  EXPECT_EQ(bearer_token("Bearer "), "");
  EXPECT_EQ(bearer_token("Bearerabc"), "");
  EXPECT_EQ(bearer_token("Basic dXNlcjpwYXNz"), "");
}

TEST(SameToken, EqualOnlyWhenEveryByteAndTheLengthMatch) {
  EXPECT_TRUE(same_token("s3cret", "s3cret"));
  EXPECT_FALSE(same_token("s3cre", "s3cret"));
  EXPECT_FALSE(same_token("s3cretX", "s3cret"));
  EXPECT_FALSE(same_token("S3cret", "s3cret"));
  EXPECT_FALSE(same_token("s3creT", "s3cret"));
  EXPECT_FALSE(same_token("", "s3cret"));
  // A given token that is the expected one with a NUL appended is still another token.
  EXPECT_FALSE(same_token(std::string_view("s3cret\0", 7), "s3cret"));
}

}  // namespace gpumeter::net::bearer_token_test
