// SPDX-License-Identifier: MIT
// Where the database lives, and the checks that keep a planted path from being followed.
#include "store/location.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "support/temp_dir.h"

namespace gpumeter::store::location_test {

using gpumeter::testing::TempDir;

TEST(DefaultPath, RootUsesTheSystemStateDirectory) {
  EXPECT_EQ(default_database_path({.home = "/root", .root = true}).value(),
            "/var/lib/gpumeter/gpumeter.db");
}

TEST(DefaultPath, AUserUsesXdgStateHome) {
  EXPECT_EQ(
      default_database_path({.xdg_state_home = "/home/ada/state", .home = "/home/ada"}).value(),
      "/home/ada/state/gpumeter/gpumeter.db");
}

TEST(DefaultPath, AUserWithoutXdgStateHomeUsesLocalState) {
  EXPECT_EQ(default_database_path({.home = "/home/ada"}).value(),
            "/home/ada/.local/state/gpumeter/gpumeter.db");
  // A relative XDG_STATE_HOME is ignored, as the XDG specification says.
  EXPECT_EQ(default_database_path({.xdg_state_home = "state", .home = "/home/ada"}).value(),
            "/home/ada/.local/state/gpumeter/gpumeter.db");
}

TEST(DefaultPath, TheEnvironmentOverridesForEveryone) {
  EXPECT_EQ(default_database_path({.gpumeter_database = "/srv/g.db", .root = true}).value(),
            "/srv/g.db");
  EXPECT_EQ(default_database_path({.gpumeter_database = "/srv/g.db", .home = "/h"}).value(),
            "/srv/g.db");
}

TEST(DefaultPath, AUserWithoutAnyHomeIsToldWhatToSet) {
  const auto path = default_database_path({});
  ASSERT_FALSE(path);
  EXPECT_EQ(path.error().code, ErrorCode::invalid_input);
  EXPECT_NE(path.error().message.find("GPUMETER_DATABASE"), std::string::npos);
}

mode_t mode_of(const std::filesystem::path& path) {
  struct stat info{};
  EXPECT_EQ(::lstat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777U;
}

class Prepare : public ::testing::Test {
 protected:
  void SetUp() override { old_umask_ = ::umask(022); }
  void TearDown() override { ::umask(old_umask_); }

  TempDir dir_;
  Owner me_ = current_owner();
  mode_t old_umask_ = 0;
};

TEST_F(Prepare, AUsersDirectoriesAndFileAreTheirsAlone) {
  const Owner user{me_.uid, false};
  const auto database = dir_ / "state/gpumeter/gpumeter.db";
  const auto prepared = prepare_database_path(database, user);
  ASSERT_TRUE(prepared) << prepared.error().message;
  EXPECT_EQ(*prepared, std::filesystem::canonical(database));
  EXPECT_EQ(mode_of(dir_ / "state"), 0700U);
  EXPECT_EQ(mode_of(dir_ / "state/gpumeter"), 0700U);
  EXPECT_EQ(mode_of(database), 0600U);
}

TEST_F(Prepare, TheSystemDatabaseMayBeReadByAGroup) {
  const Owner system{me_.uid, true};
  const auto database = dir_ / "lib/gpumeter/gpumeter.db";
  ASSERT_TRUE(prepare_database_path(database, system));
  EXPECT_EQ(mode_of(dir_ / "lib/gpumeter"), 0755U);
  EXPECT_EQ(mode_of(database), 0640U);
}

TEST_F(Prepare, AnExistingFileIsKeptAsItIs) {
  const auto database = dir_ / "kept.db";
  gpumeter::testing::write_bytes(database, "");
  ::chmod(database.c_str(), 0400);
  ASSERT_TRUE(prepare_database_path(database, me_));
  EXPECT_EQ(mode_of(database), 0400U);
}

TEST_F(Prepare, ASymbolicLinkIsRefusedAndItsTargetUntouched) {
  const auto target = dir_ / "target";
  gpumeter::testing::write_bytes(target, "someone else's file");
  ::chmod(target.c_str(), 0600);
  std::filesystem::create_symlink(target, dir_ / "link.db");
  const auto prepared = prepare_database_path(dir_ / "link.db", me_);
  ASSERT_FALSE(prepared);
  EXPECT_EQ(prepared.error().code, ErrorCode::no_permission);
  EXPECT_NE(prepared.error().message.find("symbolic link"), std::string::npos);
  EXPECT_EQ(gpumeter::testing::read_bytes(target), "someone else's file");
}

TEST_F(Prepare, ADanglingSymbolicLinkCreatesNothing) {
  std::filesystem::create_symlink(dir_ / "nowhere", dir_ / "dangling.db");
  ASSERT_FALSE(prepare_database_path(dir_ / "dangling.db", me_));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "nowhere"));
}

TEST_F(Prepare, APlantedWriteAheadLogLinkIsRefused) {
  const auto database = dir_ / "w.db";
  std::filesystem::create_symlink(dir_ / "elsewhere", dir_ / "w.db-wal");
  const auto prepared = prepare_database_path(database, me_);
  ASSERT_FALSE(prepared);
  EXPECT_NE(prepared.error().message.find("w.db-wal"), std::string::npos);
}

TEST_F(Prepare, AHardLinkedFileIsRefused) {
  const auto database = dir_ / "h.db";
  gpumeter::testing::write_bytes(database, "");
  ::chmod(database.c_str(), 0600);
  std::filesystem::create_hard_link(database, dir_ / "other-name");
  const auto prepared = prepare_database_path(database, me_);
  ASSERT_FALSE(prepared);
  EXPECT_NE(prepared.error().message.find("2 hard links"), std::string::npos);
}

TEST_F(Prepare, AFileOthersMayWriteIsRefused) {
  const auto database = dir_ / "open.db";
  gpumeter::testing::write_bytes(database, "");
  ::chmod(database.c_str(), 0666);
  const auto prepared = prepare_database_path(database, me_);
  ASSERT_FALSE(prepared);
  EXPECT_NE(prepared.error().message.find("others may write"), std::string::npos);
}

TEST_F(Prepare, ADirectoryOthersMayWriteIsRefused) {
  std::filesystem::create_directory(dir_ / "shared");
  ::chmod((dir_ / "shared").c_str(), 0777);
  const auto prepared = prepare_database_path(dir_ / "shared/g.db", me_);
  ASSERT_FALSE(prepared);
  EXPECT_NE(prepared.error().message.find("others may write"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "shared/g.db"));
}

TEST_F(Prepare, ASymbolicLinkOnTheWayIsResolved) {
  std::filesystem::create_directory(dir_ / "real");
  ::chmod((dir_ / "real").c_str(), 0700);
  std::filesystem::create_directory_symlink(dir_ / "real", dir_ / "alias");
  const auto prepared = prepare_database_path(dir_ / "alias/g.db", me_);
  ASSERT_TRUE(prepared) << prepared.error().message;
  EXPECT_EQ(*prepared, std::filesystem::canonical(dir_ / "real") / "g.db");
}

TEST_F(Prepare, AFileOwnedBySomeoneElseIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a file away needs root";
  const auto database = dir_ / "theirs.db";
  gpumeter::testing::write_bytes(database, "");
  ::chmod(database.c_str(), 0600);
  ASSERT_EQ(::chown(database.c_str(), 4242, 4242), 0);
  const auto prepared = prepare_database_path(database, me_);
  ASSERT_FALSE(prepared);
  EXPECT_NE(prepared.error().message.find("owned by uid 4242"), std::string::npos);
}

TEST_F(Prepare, ADirectoryOwnedBySomeoneElseIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "giving a directory away needs root";
  std::filesystem::create_directory(dir_ / "theirs");
  ::chmod((dir_ / "theirs").c_str(), 0755);
  ASSERT_EQ(::chown((dir_ / "theirs").c_str(), 4242, 4242), 0);
  const auto prepared = prepare_database_path(dir_ / "theirs/g.db", me_);
  ASSERT_FALSE(prepared);
  EXPECT_NE(prepared.error().message.find("owned by uid 4242"), std::string::npos);
}

}  // namespace gpumeter::store::location_test
