// SPDX-License-Identifier: MIT
#include "cli/config_tables.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <utility>

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

// What TOML refuses is toml++'s to describe, at its line.
TEST(ConfigTables, WhatTomlRefusesIsNamedWithFileAndLine) {
  for (const auto& [text, line] :
       {std::pair{"interval\n", 1}, std::pair{"\n\nname = \"gpu01\n", 3},
        std::pair{"a = 1\na = 2\n", 2}, std::pair{"[[agent]\n", 1}, std::pair{"a =\n", 1},
        std::pair{"a = two words\n", 1}, std::pair{"a = \"x\" y\n", 1},
        std::pair{"ok = 1\n\n[agent] x\n", 3}}) {
    const std::string error = error_of(text);
    EXPECT_TRUE(error.starts_with(fmt::format("fleet.toml:{}: ", line))) << text << error;
    EXPECT_GT(error.size(), fmt::format("fleet.toml:{}: ", line).size()) << text;
  }
}

// What TOML allows but these files do not hold.
TEST(ConfigTables, ArraysTablesInTablesAndDatesAreRefusedAtTheirLine) {
  EXPECT_EQ(error_of("a = 1\nb = [1, 2]\n"),
            "fleet.toml:2: expected one value (a string, a number or true/false), not an array "
            "or table");
  EXPECT_EQ(error_of("b = {c = 1}\n"),
            "fleet.toml:1: expected one value (a string, a number or true/false), not an array "
            "or table");
  EXPECT_EQ(error_of("\n[a.b]\nc = 1\n"),
            "fleet.toml:2: expected one value (a string, a number or true/false), not an array "
            "or table");
  EXPECT_EQ(error_of("when = 2026-11-28\n"),
            "fleet.toml:1: expected one value (a string, a number or true/false), not a date or "
            "time");
}

// toml++ 3.3.0 asserts on these (a release build assumes they cannot happen): refused first.
TEST(ConfigTables, AHeaderWhoseNameDoesNotStartAsAKeyIsRefusedBeforeToml) {
  for (const char* header :
       {"[=x]", "[#]", "[ .a]", "[[{]]", "[;]", "[[ =]]", "[\ndaemon]", "[[ \nx]]"}) {
    EXPECT_EQ(error_of(std::string("a = 1\n") + header + "\n"),
              "fleet.toml:2: expected a table name after \"[\", such as [daemon]")
        << header;
  }
  // Not a header: a line of a multi-line string.
  const auto tables =
      parse_config_tables("s = \"\"\"\n[=x]\n\"\"\"\nb = '''\n[#]\n'''\n", "fleet.toml");
  ASSERT_TRUE(tables) << tables.error().message;
  ASSERT_EQ(tables->front().entries.size(), 2U);
  EXPECT_EQ(tables->front().entries[0].value, "[=x]\n");
  EXPECT_EQ(tables->front().entries[1].value, "[#]\n");
}

// toml++ makes a table per dotted part and recurses through them: 200,000 parts overflowed
// the stack. Keys and headers are capped at 64 parts before toml++ reads them.
TEST(ConfigTables, AKeyOrHeaderOfTooManyDottedPartsIsRefusedAtItsLine) {
  std::string parts = "a";
  for (int i = 0; i < 200'000; ++i) parts += ".a";
  const std::string refused =
      "fleet.toml:3: expected a key or table name of at most 64 dotted parts";
  EXPECT_EQ(error_of("[daemon]\nx = 1\n" + parts + " = 1\n"), refused);
  EXPECT_EQ(error_of("[daemon]\nx = 1\n[" + parts + "]\n"), refused);
  EXPECT_EQ(error_of("[daemon]\n# \"\nx" + std::string(70, '.') + "x = 1\n"),
            "fleet.toml:3: expected a key or table name of at most 64 dotted parts");
  // A quote in a comment starts no string (above); dots inside strings and comments are not
  // parts, and an escaped line break in a string still counts as a line.
  const std::string dots(100, '.');
  const auto tables = parse_config_tables("[daemon]\n# " + dots + "\na = \"" + dots + "\"\nb = '" +
                                              dots + "'\nc = \"\"\"\\\n" + dots + "\"\"\"\n",
                                          "fleet.toml");
  ASSERT_TRUE(tables) << tables.error().message;
  ASSERT_EQ(tables->back().entries.size(), 3U);
  EXPECT_EQ(tables->back().entries[0].value, dots);
  EXPECT_EQ(tables->back().entries[2].value, dots);
}

// toml++ 3.3.0 reaches code it marks unreachable on some non-ASCII characters.
TEST(ConfigTables, ANonAsciiByteIsRefusedAtItsLine) {
  EXPECT_EQ(error_of("a = 1\nli\xc8\x97 = 2\n"),
            "fleet.toml:2: expected ASCII (config files are plain ASCII text)");
  EXPECT_EQ(error_of("a = \"caf\xc3\xa9\"\n"),
            "fleet.toml:1: expected ASCII (config files are plain ASCII text)");
}

TEST(ConfigTables, NumbersAndBooleansAsTomlWritesThemAndIniComments) {
  const auto tables = parse_config_tables(
      "; an INI comment\n  ; indented too\nratio = 0.5\nlow = -3\nbig = 1_000\non = false\n",
      "fleet.toml");
  ASSERT_TRUE(tables) << tables.error().message;
  const std::vector<ConfigEntry>& entries = tables->front().entries;
  ASSERT_EQ(entries.size(), 4U);
  EXPECT_EQ(entries[0].key, "ratio");
  EXPECT_EQ(entries[0].value, "0.5");
  EXPECT_EQ(entries[0].line, 3U);
  EXPECT_EQ(entries[1].value, "-3");
  EXPECT_EQ(entries[2].value, "1000");
  EXPECT_EQ(entries[3].value, "false");
}

TEST(ConfigTables, EntriesAndTablesKeepTheFilesOrder) {
  // TOML's tables are maps: the order of the file is rebuilt from the lines.
  const auto tables = parse_config_tables(
      "zeta = 1\nalpha = 2\n[[agent]]\nurl = \"b\"\n[master]\nx = 1\n[[agent]]\nurl = \"a\"\n",
      "fleet.toml");
  ASSERT_TRUE(tables) << tables.error().message;
  ASSERT_EQ(tables->size(), 4U);
  EXPECT_EQ((*tables)[0].entries[0].key, "zeta");
  EXPECT_EQ((*tables)[1].entries[0].value, "b");
  EXPECT_EQ((*tables)[1].line, 3U);
  EXPECT_EQ((*tables)[2].name, "master");
  EXPECT_EQ((*tables)[3].entries[0].value, "a");
  EXPECT_EQ((*tables)[3].line, 7U);
}

TEST(ConfigTables, TheSameKeyInTwoTablesIsFine) {
  EXPECT_EQ(error_of("[[agent]]\nurl = \"self\"\n[[agent]]\nurl = \"self\"\n"), "no error");
}

}  // namespace gpumeter::cli::config_tables_test
