// SPDX-License-Identifier: MIT
// The subcommands run in-process through run(), against the simulated driver: --simulate
// finds the simulated library next to this test binary, as it does next to gpumeter. Every
// test reads the same scenario (the simulated library loads one per process).
#include <gtest/gtest.h>
#include <stdlib.h>  // setenv, mkdtemp: POSIX

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/json.h"
#include "cli/terminal.h"
#include "support/run_cli.h"
#include "support/source_files.h"

namespace gpumeter::cli::commands_test {

std::string scenario() {
  return gpumeter::testing::source_path("examples/scenarios/dgx-8gpu.json").string();
}

class Commands : public ::testing::Test {
 protected:
  // Each test reserves in a directory of its own, as a separate login would.
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "gpumeter-rt-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    setenv("XDG_RUNTIME_DIR", pattern.c_str(), 1);
  }

  static Result run_with(const std::vector<std::string>& args, bool terminal = false,
                         const char* no_color = nullptr) {
    std::vector<std::string> argv{"--simulate", scenario()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_cli(argv, terminal, no_color);
  }

  static std::size_t count(const std::string& text, std::string_view word) {
    std::size_t n = 0;
    for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
    return n;
  }
};

TEST_F(Commands, ListPrintsEveryGpu) {
  const Result result = run_with({"list"});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(count(result.out, "[~]"), 3U) << result.out;
  EXPECT_EQ(count(result.out, "[ ]"), 5U) << result.out;
  EXPECT_EQ(result.out.find('\x1b'), std::string::npos);
}

TEST_F(Commands, ColoursOnATerminalUnlessNoColor) {
  EXPECT_NE(run_with({"list"}, true).out.find("\x1b[34m[~]"), std::string::npos);
  EXPECT_EQ(run_with({"list"}, true, "1").out.find('\x1b'), std::string::npos);
  EXPECT_EQ(run_with({"list", "--no-color"}, true).out.find('\x1b'), std::string::npos);
}

TEST_F(Commands, WatchIntoAPipePrintsSuccessiveTables) {
  const Result result = run_with({"list", "--watch", "0.05", "--count", "3"});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(count(result.out, "[~]"), 9U);
  EXPECT_EQ(count(result.out, "\n\n"), 2U);
  EXPECT_EQ(result.out.find(kClearScreen), std::string::npos);
}

TEST_F(Commands, WatchOnATerminalRedrawsInPlace) {
  const Result result = run_with({"list", "--watch", "0.05", "--count", "2"}, true);
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(count(result.out, kClearScreen), 2U);
  EXPECT_EQ(result.out.rfind(kClearScreen, 0), 0U);
}

TEST_F(Commands, WatchJsonIsOneDocumentPerLine) {
  const Result result = run_with({"list", "--json", "--watch", "0.05", "--count", "2"});
  ASSERT_EQ(result.status, 0) << result.err;
  std::istringstream lines(result.out);
  int documents = 0;
  for (std::string line; std::getline(lines, line); ++documents) {
    EXPECT_EQ(Json::parse(line)["gpus"].size(), 8U);
  }
  EXPECT_EQ(documents, 2);
}

TEST_F(Commands, ListJsonNamesTheSimulatedSource) {
  const Result result = run_with({"list", "--json"});
  ASSERT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(Json::parse(result.out)["source"], "nvml (simulated: dgx-8gpu.json)");
}

TEST_F(Commands, AvailablePrintsTheFreeGpus) {
  const Result result = run_with({"available", "--no-reserve"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out, "0,4,5,6,7\n");
}

TEST_F(Commands, ReservedGpusAreNotPrintedTwice) {
  EXPECT_EQ(run_with({"available", "-l", "1"}).out, "0\n");
  EXPECT_EQ(run_with({"available", "-l", "2"}).out, "4,5\n");
  EXPECT_EQ(run_with({"available", "-l", "1", "--no-reserve"}).out, "0\n");
}

TEST_F(Commands, AvailableOrderAndThresholds) {
  const Result result = run_with({"available", "--no-reserve", "--max-memory", "100", "--max-util",
                                  "100", "--order", "power"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out, "0,4,5,6,7,1,2,3\n");
}

TEST_F(Commands, TooFewFreeGpusIsExitOneWithTheReason) {
  const Result result = run_with({"available", "-l", "6"});
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err.rfind("only 5 of the 6 GPUs asked for are free: 3 of 8 in use (GPU 1: ", 0),
            0U)
      << result.err;
}

TEST_F(Commands, WaitGivesUpAtItsTimeout) {
  const Result result = run_with({"available", "-l", "6", "--wait", "1s"});
  EXPECT_EQ(result.status, 1);
  EXPECT_EQ(result.out, "");
  EXPECT_EQ(result.err.rfind("timed out after 1s: only 5 of the 6", 0), 0U) << result.err;
}

TEST_F(Commands, WaitReturnsAtOnceWhenEnoughAreFree) {
  const Result result = run_with({"available", "-l", "2", "--wait"});
  EXPECT_EQ(result.status, 0) << result.err;
  EXPECT_EQ(result.out, "0,4\n");
}

TEST_F(Commands, InfoJsonHasOneEntryPerGpu) {
  const Result result = run_with({"info", "--json"});
  ASSERT_EQ(result.status, 0) << result.err;
  const Json info = Json::parse(result.out);
  ASSERT_EQ(info.size(), 8U);
  EXPECT_EQ(info[1]["mem_used"], 893);
}

}  // namespace gpumeter::cli::commands_test
