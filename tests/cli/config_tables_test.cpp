#include "cli/config_tables.h"

#include <gtest/gtest.h>

namespace gpumeter::cli::config_tables_test {

std::string error_of(std::string_view text) {
  const auto tables = parse_config_tables(text, "fleet.toml");
  return tables ? std::string("no error") : tables.error().message;
}

TEST(ConfigTables, KeysTablesAndArraysOfTablesWithTheirLines) {
  const auto tables = parse_config_tables(
      "# the fleet\n"
      "interval = \"5s\"   # every five seconds\n"
      "stale-after = 3\n"
      "\n"
      "[[agent]]\n"
      "url = 'http://gpu01:9416'\n"
      "name = \"say \\\"hi\\\" \\\\ there\"\n"
      "[master]\n"
      "insecure = true\n",
      "fleet.toml");
  ASSERT_TRUE(tables) << tables.error().message;
  ASSERT_EQ(tables->size(), 3U);
  const ConfigTable& top = (*tables)[0];
  EXPECT_EQ(top.name, "");
  ASSERT_EQ(top.entries.size(), 2U);
  EXPECT_EQ(top.entries[0].key, "interval");
  EXPECT_EQ(top.entries[0].value, "5s");
  EXPECT_EQ(top.entries[0].line, 2U);
  EXPECT_EQ(top.entries[1].value, "3");
  const ConfigTable& agent = (*tables)[1];
  EXPECT_EQ(agent.name, "agent");
  EXPECT_TRUE(agent.array_item);
  EXPECT_EQ(agent.line, 5U);
  EXPECT_EQ(agent.entries[0].value, "http://gpu01:9416");
  EXPECT_EQ(agent.entries[1].value, "say \"hi\" \\ there");
  EXPECT_EQ((*tables)[2].name, "master");
  EXPECT_FALSE((*tables)[2].array_item);
  EXPECT_EQ((*tables)[2].entries[0].value, "true");
}

TEST(ConfigTables, EmptyTextHasAnEmptyTopTable) {
  const auto tables = parse_config_tables("", "fleet.toml");
  ASSERT_TRUE(tables);
  ASSERT_EQ(tables->size(), 1U);
  EXPECT_TRUE(tables->front().entries.empty());
}

TEST(ConfigTables, ErrorsNameFileLineAndWhatWasExpected) {
  EXPECT_EQ(error_of("interval\n"),
            "fleet.toml:1: expected key = value (a key of letters, digits, - and _)");
  EXPECT_EQ(error_of("\n\nname = \"gpu01\n"),
            "fleet.toml:3: unterminated string (expected a closing quote)");
  EXPECT_EQ(error_of("a = 1\na = 2\n"), "fleet.toml:2: \"a\" is set twice (first on line 1)");
  EXPECT_EQ(error_of("[[agent]\n"),
            "fleet.toml:1: expected a table header such as [name] or [[name]]");
  EXPECT_EQ(error_of("[agent] x\n"),
            "fleet.toml:1: expected a table header such as [name] or [[name]]");
  EXPECT_EQ(error_of("a =\n"), "fleet.toml:1: expected a value after \"=\"");
  EXPECT_EQ(error_of("a = two words\n"),
            "fleet.toml:1: expected one value (quote a value that has spaces: \"...\")");
  EXPECT_EQ(error_of("a = \"x\" y\n"),
            "fleet.toml:1: expected nothing but a comment after the string");
}

TEST(ConfigTables, TheSameKeyInTwoTablesIsFine) {
  EXPECT_EQ(error_of("[[agent]]\nurl = \"self\"\n[[agent]]\nurl = \"self\"\n"), "no error");
}

}  // namespace gpumeter::cli::config_tables_test
