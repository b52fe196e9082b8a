// SPDX-License-Identifier: MIT
#include "cli/report_database.h"

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace gpumeter::cli::report_database_test {

namespace fs = std::filesystem;

const fs::path kSystem = "/var/lib/gpumeter/gpumeter.db";

TEST(ReportDatabase, ANamedFileIsTheOnlyCandidate) {
  EXPECT_EQ(report_database_candidates(fs::path("/tmp/h.db"), {.home = "/home/ada"}),
            std::vector<fs::path>{"/tmp/h.db"});
  EXPECT_EQ(report_database_candidates(std::nullopt,
                                       {.gpumeter_database = "/srv/h.db", .home = "/home/ada"}),
            std::vector<fs::path>{"/srv/h.db"});
}

TEST(ReportDatabase, RootReadsTheSystemHistory) {
  EXPECT_EQ(report_database_candidates(std::nullopt, {.home = "/root", .root = true}),
            std::vector<fs::path>{kSystem});
}

TEST(ReportDatabase, OthersTheirOwnThenTheSystems) {
  EXPECT_EQ(report_database_candidates(std::nullopt, {.home = "/home/ada"}),
            (std::vector<fs::path>{"/home/ada/.local/state/gpumeter/gpumeter.db", kSystem}));
  EXPECT_EQ(report_database_candidates(std::nullopt, {.xdg_state_home = "/x", .home = "/h"}),
            (std::vector<fs::path>{"/x/gpumeter/gpumeter.db", kSystem}));
  EXPECT_EQ(report_database_candidates(std::nullopt, {}), std::vector<fs::path>{kSystem});
}

TEST(ReportDatabase, NoneFoundSaysWhereItLookedAndHowToRecord) {
  const gpumeter::testing::TempDir dir;
  const auto opened = open_report_database({dir / "mine.db", dir / "system.db"});
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ErrorCode::invalid_input);
  EXPECT_EQ(opened.error().message,
            "no gpumeter history found (looked for " + (dir / "mine.db").string() + " and " +
                (dir / "system.db").string() +
                "). History is recorded by `gpumeter daemon` (run as root, it writes "
                "/var/lib/gpumeter/gpumeter.db) or once by `gpumeter record --once`; --database "
                "PATH reads another file");
}

TEST(ReportDatabase, TheFirstThatExistsIsOpenedReadOnly) {
  const gpumeter::testing::TempDir dir;
  ASSERT_TRUE(store::Store::open(dir / "system.db", {.host = "node1"}));
  const auto opened = open_report_database({dir / "mine.db", dir / "system.db"});
  ASSERT_TRUE(opened) << opened.error().message;
  EXPECT_EQ(opened->journal_mode(), "read-only");
  EXPECT_EQ(opened->path().filename(), "system.db");
  EXPECT_FALSE(fs::exists(dir / "mine.db"));
}

TEST(ReportDatabase, AForeignFileIsRefusedAsBadInput) {
  const gpumeter::testing::TempDir dir;
  gpumeter::testing::write_bytes(dir / "notes.txt", "not a database at all\n");
  const auto opened = open_report_database({dir / "notes.txt"});
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ErrorCode::invalid_input);
  EXPECT_NE(opened.error().message.find("is not a gpumeter database"), std::string::npos);
}

}  // namespace gpumeter::cli::report_database_test
