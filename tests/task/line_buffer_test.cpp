// SPDX-License-Identifier: MIT
#include "task/line_buffer.h"

#include <gtest/gtest.h>

namespace gpumeter::task::line_buffer_test {

TEST(LineBuffer, SplitsLinesAcrossReads) {
  LineBuffer buffer(100);
  std::string line;
  buffer.append("{\"a\":1}\n{\"b\"");
  ASSERT_EQ(buffer.next(line), LineBuffer::Next::line);
  EXPECT_EQ(line, "{\"a\":1}");
  EXPECT_EQ(buffer.next(line), LineBuffer::Next::need_more);
  EXPECT_TRUE(buffer.wants_more());
  buffer.append(":2}\r\n");
  ASSERT_EQ(buffer.next(line), LineBuffer::Next::line);
  EXPECT_EQ(line, "{\"b\":2}");
  EXPECT_EQ(buffer.buffered(), 0U);
}

TEST(LineBuffer, StopsAskingForMoreWhileALineWaits) {
  LineBuffer buffer(100);
  buffer.append("x\ny");
  EXPECT_FALSE(buffer.wants_more());
  EXPECT_TRUE(buffer.has_line());
}

TEST(LineBuffer, ALineOverTheLimitIsTooLarge) {
  LineBuffer buffer(10);
  std::string line;
  buffer.append(std::string(11, 'x') + "\n");
  EXPECT_EQ(buffer.next(line), LineBuffer::Next::too_large);
}

TEST(LineBuffer, APartialLineOverTheLimitIsTooLargeWithoutWaitingForItsEnd) {
  LineBuffer buffer(10);
  std::string line;
  buffer.append(std::string(10, 'x'));
  EXPECT_EQ(buffer.next(line), LineBuffer::Next::need_more);
  buffer.append("x");
  EXPECT_EQ(buffer.next(line), LineBuffer::Next::too_large);
  EXPECT_FALSE(buffer.wants_more());
}

TEST(LineBuffer, ALineOfExactlyTheLimitPasses) {
  LineBuffer buffer(10);
  std::string line;
  buffer.append(std::string(10, 'x') + "\r\n");
  EXPECT_EQ(buffer.next(line), LineBuffer::Next::line);
}

TEST(LineBuffer, FinishTurnsAFinalPartialLineIntoALine) {
  LineBuffer buffer(100);
  std::string line;
  buffer.append("last");
  buffer.finish();
  ASSERT_EQ(buffer.next(line), LineBuffer::Next::line);
  EXPECT_EQ(line, "last");
  buffer.finish();
  EXPECT_EQ(buffer.next(line), LineBuffer::Next::need_more);
}

}  // namespace gpumeter::task::line_buffer_test
