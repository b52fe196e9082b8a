// SPDX-License-Identifier: MIT
#include "sim/json_located.h"

#include <gtest/gtest.h>

namespace gpumeter::sim::json_located_test {

TEST(JsonLocated, RecordsTheLineOfEveryValue) {
  const auto doc = parse_located_json(
      "{\n  \"a\": 1,\n  \"b\": [\n    \"x\",\n    true\n  ],\n  \"c\": {\"d\": 2.5}\n}\n",
      "f.json");
  ASSERT_TRUE(doc.has_value()) << doc.error().message;
  EXPECT_EQ(doc->line_of(""), 1);
  EXPECT_EQ(doc->line_of("/a"), 2);  // a number, although the lexer read the newline after it
  EXPECT_EQ(doc->line_of("/b"), 3);
  EXPECT_EQ(doc->line_of("/b/0"), 4);
  EXPECT_EQ(doc->line_of("/b/1"), 5);
  EXPECT_EQ(doc->line_of("/c/d"), 7);
  EXPECT_EQ(doc->value["c"]["d"], 2.5);
}

TEST(JsonLocated, UnknownPointersFallBackToTheNearestAncestor) {
  const auto doc = parse_located_json("{\n\"o\": {\n}\n}", "f.json");
  ASSERT_TRUE(doc.has_value());
  EXPECT_EQ(doc->line_of("/o/missing"), 2);
}

TEST(JsonLocated, SyntaxErrorsNameFileAndLine) {
  const auto doc =
      parse_located_json("{\n  \"devices\": [\n    {\"name\": \"A100\",, }\n  ]\n}\n", "bad.json");
  ASSERT_FALSE(doc.has_value());
  EXPECT_EQ(doc.error().code, ErrorCode::invalid_input);
  EXPECT_TRUE(doc.error().message.starts_with("bad.json:3: ")) << doc.error().message;
  EXPECT_NE(doc.error().message.find("syntax error"), std::string::npos) << doc.error().message;
}

// Refused before parsing: the depth costs nothing but the scan (40,000 levels once cost GBs).
TEST(JsonLocated, NestingBeyondTheCapIsRefusedWithItsLine) {
  const std::string deep = "{\"a\":\n" + std::string(40'000, '[') + std::string(40'000, ']') + "}";
  const auto doc = parse_located_json(deep, "deep.json");
  ASSERT_FALSE(doc.has_value());
  EXPECT_EQ(doc.error().message, "deep.json:2: nested deeper than 64 levels (expected at most 64)");
  const std::string at_cap = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(parse_located_json(at_cap, "ok.json").has_value());
  // Brackets inside strings are text, not nesting.
  const std::string quoted = "[\"" + std::string(100, '[') + "\\\"\"]";
  EXPECT_TRUE(parse_located_json(quoted, "quoted.json").has_value());
}

TEST(JsonLocated, TruncatedInputIsAnError) {
  const auto doc = parse_located_json("{\n  \"a\": [1,\n", "cut.json");
  ASSERT_FALSE(doc.has_value());
  EXPECT_TRUE(doc.error().message.starts_with("cut.json:")) << doc.error().message;
}

TEST(JsonLocated, DuplicateKeysAreErrors) {
  const auto doc = parse_located_json("{\n  \"a\": 1,\n  \"a\": 2\n}", "dup.json");
  ASSERT_FALSE(doc.has_value());
  EXPECT_EQ(doc.error().message, "dup.json:3: duplicate key \"a\"");
}

TEST(JsonLocated, ReadablePaths) {
  EXPECT_EQ(readable_path("/devices/0/memory_total_bytes"), "devices[0].memory_total_bytes");
  EXPECT_EQ(readable_path("/a~1b/c~0d"), "a/b.c~d");
  EXPECT_EQ(readable_path(""), "(top level)");
}

}  // namespace gpumeter::sim::json_located_test
