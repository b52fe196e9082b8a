// SPDX-License-Identifier: MIT
// The command line through run(), in-process: parsing and usage errors, which happen before
// any source is opened.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "support/run_cli.h"

namespace gpumeter::cli::options_test {

Result run_with(const std::vector<std::string>& args) {
  return run_cli(args);
}

TEST(Options, VersionPrintsAndSucceeds) {
  const Result result = run_with({"--version"});
  EXPECT_EQ(result.status, 0);
  EXPECT_EQ(result.out, "gpumeter " GPUMETER_VERSION "\n");
}

TEST(Options, HelpListsTheSubcommands) {
  const Result result = run_with({"--help"});
  EXPECT_EQ(result.status, 0);
  for (const char* word : {"list", "available", "info", "--simulate", "--no-color"}) {
    EXPECT_NE(result.out.find(word), std::string::npos) << word;
  }
}

TEST(Options, SubcommandHelpHidesTheTestOnlyCount) {
  const Result result = run_with({"list", "--help"});
  EXPECT_EQ(result.status, 0);
  EXPECT_NE(result.out.find("--watch"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("--count"), std::string::npos) << result.out;
}

TEST(Options, ASubcommandIsRequired) {
  const Result result = run_with({});
  EXPECT_EQ(result.status, 2);
  EXPECT_FALSE(result.err.empty());
}

TEST(Options, UsageErrorsExitTwoWithCliMessage) {
  const std::vector<std::vector<std::string>> bad{
      {"frobnicate"},
      {"list", "--no-such-option"},
      {"list", "--watch", "0"},
      {"list", "--watch", "soon"},
      {"list", "--watch", "1e300"},
      {"list", "--count", "3"},  // --count needs --watch
      {"available", "--max-memory", "lots"},
      {"available", "--max-util", "101"},
      {"available", "-l", "0"},
      {"available", "--order", "random"},
      {"available", "--wait", "10 minutes"},
      {"available", "--wait", "-1"},
      {"info", "--uuid"},
  };
  for (const auto& args : bad) {
    const Result result = run_with(args);
    EXPECT_EQ(result.status, 2) << args.back();
    EXPECT_TRUE(result.out.empty()) << args.back();
    EXPECT_FALSE(result.err.empty()) << args.back();
  }
}

TEST(Options, UnknownOptionIsNamed) {
  const Result result = run_with({"list", "--no-such-option"});
  EXPECT_NE(result.err.find("--no-such-option"), std::string::npos) << result.err;
}

TEST(Options, BadScenarioExitsTwoWithoutLoadingAnything) {
  const Result result = run_with({"--simulate", "/nonexistent/scenario.json", "list"});
  EXPECT_EQ(result.status, 2);
  EXPECT_TRUE(result.out.empty());
  EXPECT_NE(result.err.find("/nonexistent/scenario.json"), std::string::npos) << result.err;
}

TEST(Options, GlobalOptionsMayFollowTheSubcommand) {
  for (const char* command : {"list", "available", "info"}) {
    const Result result =
        run_with({command, "--no-color", "--simulate", "/nonexistent/scenario.json"});
    EXPECT_EQ(result.status, 2) << command;
    // Parsed, then refused for the scenario: not a usage error.
    EXPECT_NE(result.err.find("/nonexistent/scenario.json"), std::string::npos) << result.err;
    EXPECT_EQ(result.err.find("not expected"), std::string::npos) << result.err;
  }
}

TEST(Options, AnUnknownOrMissingCommandIsNamedWithTheCommands) {
  const Result unknown = run_with({"--simulate", "x.json", "lsit"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown command \"lsit\": expected one of list, top, available"),
            std::string::npos)
      << unknown.err;
  const Result missing = run_with({"--no-color"});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("a command is required: one of list, top, available"),
            std::string::npos)
      << missing.err;
}

TEST(Options, ACommandGivenToRunWithoutDashesIsToldWhereItGoes) {
  const Result result = run_with({"run", "ls", "-la"});
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("-la"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("gpumeter run [OPTIONS] -- COMMAND [ARGS...]"), std::string::npos)
      << result.err;
}

TEST(Options, RecordSaysOnceIsRequiredBeforeOpeningAnything) {
  const Result result = run_with({"--simulate", "/nonexistent/scenario.json", "record"});
  EXPECT_EQ(result.status, 2);
  EXPECT_NE(result.err.find("--once is required"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("/nonexistent"), std::string::npos) << result.err;
  const Result help = run_with({"record", "--help"});
  EXPECT_EQ(help.out.find("REQUIRED"), std::string::npos) << help.out;
}

}  // namespace gpumeter::cli::options_test
