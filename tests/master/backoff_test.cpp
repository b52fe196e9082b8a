// SPDX-License-Identifier: MIT
#include "master/backoff.h"

#include <gtest/gtest.h>

#include <string>

namespace gpumeter::master::backoff_test {

// Which of `rounds` rounds poll, as a string of 'P' (polled) and '.' (skipped), when every
// poll fails.
std::string pattern_while_failing(Backoff& backoff, int rounds) {
  std::string pattern;
  for (int round = 0; round < rounds; ++round) {
    if (backoff.due()) {
      pattern += 'P';
      backoff.failed();
    } else {
      pattern += '.';
    }
  }
  return pattern;
}

TEST(Backoff, WaitsDoubleAfterEachFailure) {
  Backoff backoff(64);
  // Waits of 1, 2, 4, 8 and 16 rounds between polls.
  EXPECT_EQ(pattern_while_failing(backoff, 32), "PP.P...P.......P...............P");
  EXPECT_EQ(backoff.consecutive_failures(), 6U);
}

TEST(Backoff, WaitIsCapped) {
  Backoff backoff(4);
  EXPECT_EQ(pattern_while_failing(backoff, 20), "PP.P...P...P...P...P");
}

TEST(Backoff, CapOfOneNeverBacksOff) {
  Backoff backoff(0);  // taken as 1
  EXPECT_EQ(pattern_while_failing(backoff, 5), "PPPPP");
}

TEST(Backoff, SuccessPollsEveryRoundAgain) {
  Backoff backoff(64);
  pattern_while_failing(backoff, 8);
  ASSERT_GT(backoff.rounds_to_skip(), 0U);
  backoff.succeeded();
  EXPECT_EQ(backoff.consecutive_failures(), 0U);
  EXPECT_TRUE(backoff.due());
  EXPECT_TRUE(backoff.due());
}

TEST(Backoff, LongOutagesDoNotOverflow) {
  Backoff backoff(UINT32_MAX);
  for (int i = 0; i < 100; ++i) backoff.failed();
  EXPECT_EQ(backoff.consecutive_failures(), 100U);
  EXPECT_EQ(backoff.rounds_to_skip(), (1U << 31) - 1);
}

}  // namespace gpumeter::master::backoff_test
