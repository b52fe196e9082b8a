// SPDX-License-Identifier: MIT
// Opening the database: a new file gets the latest schema in WAL mode; files the store must
// not touch (another program's, a newer schema's, not a database at all) are refused and left
// byte for byte as they were.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "store/gauges.h"
#include "store/history.h"
#include "store/schema.h"
#include "store/sqlite.h"
#include "store/write.h"
#include "support/raw_database.h"
#include "support/store_fixtures.h"

namespace gpumeter::store::open_test {

using gpumeter::testing::TempDir;
using testing::RawDatabase;

TEST(Open, NewDatabaseHasTheLatestSchemaInWalMode) {
  TempDir dir;
  {
    Store store = testing::open_store(dir / "new.db");
    EXPECT_EQ(store.journal_mode(), "wal");
    EXPECT_EQ(store.host(), "node1");
  }
  RawDatabase raw(dir / "new.db");
  EXPECT_EQ(raw.integer("PRAGMA user_version"), latest_schema_version());
  EXPECT_EQ(raw.integer("PRAGMA application_id"), kApplicationId);
  EXPECT_EQ(raw.text("PRAGMA journal_mode"), "wal");
  for (const char* table : {"devices", "device_samples", "device_minutes", "device_hours", "ledger",
                            "process_minutes", "process_hours", "tasks", "meta"}) {
    EXPECT_EQ(
        raw.integer(std::string("SELECT count(*) FROM sqlite_schema WHERE name = '") + table + "'"),
        1)
        << table;
  }
  EXPECT_EQ(raw.text("SELECT name FROM hosts"), "node1");
}

TEST(Open, EveryGaugeHasItsColumnsInEveryTier) {
  TempDir dir;
  {
    testing::open_store(dir / "g.db");
  }
  RawDatabase raw(dir / "g.db");
  for (const Gauge& gauge : kGauges) {
    const std::string column(gauge.column());
    EXPECT_NO_THROW(raw.rows("SELECT " + column + " FROM device_samples")) << column;
    for (const char* table : {"device_minutes", "device_hours"}) {
      EXPECT_NO_THROW(raw.rows("SELECT " + column + "_min, " + column + "_avg, " + column +
                               "_max FROM " + table))
          << table << "." << column;
    }
  }
}

TEST(Open, ReopeningKeepsTheHostAndAddsAnother) {
  TempDir dir;
  std::int64_t first = 0;
  {
    first = testing::open_store(dir / "h.db").host_id();
  }
  EXPECT_EQ(testing::open_store(dir / "h.db").host_id(), first);
  EXPECT_NE(testing::open_store(dir / "h.db", {.host = "node2"}).host_id(), first);
}

TEST(Open, SettingsAreThoseDocumented) {
  TempDir dir;
  Store store =
      testing::open_store(dir / "s.db", {.busy_timeout = std::chrono::milliseconds(1234)});
  auto& connection = store.connection();
  EXPECT_EQ(connection.scalar("PRAGMA synchronous").value(), 1);  // NORMAL
  EXPECT_EQ(connection.scalar("PRAGMA foreign_keys").value(), 1);
  EXPECT_EQ(connection.scalar("PRAGMA busy_timeout").value(), 1234);
}

TEST(Open, ThePageCacheIsSQLitesUnlessAskedToBeSmaller) {
  TempDir dir;
  const auto path = dir / "c.db";
  {
    Store store = testing::open_store(path);
    EXPECT_EQ(store.connection().scalar("PRAGMA cache_size").value(), -2000);  // SQLite's default
  }
  Store writer = testing::open_store(path, {.page_cache_kib = 300});
  EXPECT_EQ(writer.connection().scalar("PRAGMA cache_size").value(), -300);  // in KiB
  auto reader = Store::open(
      path, {.host = "node1", .read_only = true, .page_cache_kib = kLongLivedPageCacheKib});
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_EQ(reader->connection().scalar("PRAGMA cache_size").value(),
            -std::int64_t{kLongLivedPageCacheKib});
}

TEST(Open, NewerSchemaIsRefusedAndTheFileIsNotModified) {
  TempDir dir;
  const auto path = dir / "newer.db";
  {
    testing::open_store(path);
  }
  {
    RawDatabase raw(path);
    raw.exec("PRAGMA user_version = 99; CREATE TABLE from_the_future (x);");
  }
  const std::string before = gpumeter::testing::read_bytes(path);
  auto store = Store::open(path, {.host = "node1"});
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::invalid_input);
  EXPECT_NE(store.error().message.find(fmt::format(
                "was written by a newer gpumeter (schema 99; this one knows up to {}); it was "
                "not modified",
                latest_schema_version())),
            std::string::npos)
      << store.error().message;
  EXPECT_EQ(gpumeter::testing::read_bytes(path), before);
}

TEST(Open, AFileThatIsNotADatabaseIsRefusedUntouched) {
  TempDir dir;
  const auto path = dir / "notes.db";
  std::string text;
  for (int line = 0; line < 300; ++line) text += fmt::format("line {} of a text file\n", line);
  gpumeter::testing::write_bytes(path, text);
  ::chmod(path.c_str(), 0600);
  auto store = Store::open(path, {.host = "node1"});
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::invalid_input);
  EXPECT_NE(store.error().message.find("is not a gpumeter database or is damaged"),
            std::string::npos)
      << store.error().message;
  EXPECT_NE(store.error().message.find("it was not modified"), std::string::npos);
  EXPECT_EQ(gpumeter::testing::read_bytes(path), text);
}

TEST(Open, ADatabaseWithADamagedHeaderIsRefusedUntouched) {
  TempDir dir;
  const auto path = dir / "damaged.db";
  {
    testing::open_store(path);
  }
  std::string bytes = gpumeter::testing::read_bytes(path);
  ASSERT_GT(bytes.size(), 100U);
  bytes.replace(0, 16, "Not SQLite at al");  // the magic string
  gpumeter::testing::write_bytes(path, bytes);
  auto store = Store::open(path, {.host = "node1"});
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find("is not a gpumeter database or is damaged"),
            std::string::npos)
      << store.error().message;
  EXPECT_EQ(gpumeter::testing::read_bytes(path), bytes);
}

TEST(Open, AnotherProgramsDatabaseIsRefusedUntouched) {
  TempDir dir;
  const auto path = dir / "other.db";
  {
    RawDatabase raw(path);
    raw.exec("CREATE TABLE accounts (name TEXT); INSERT INTO accounts VALUES ('x');");
  }
  ::chmod(path.c_str(), 0600);
  const std::string before = gpumeter::testing::read_bytes(path);
  auto store = Store::open(path, {.host = "node1"});
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find("an SQLite database of something else"), std::string::npos)
      << store.error().message;
  EXPECT_EQ(gpumeter::testing::read_bytes(path), before);

  RawDatabase raw(path);
  raw.exec("PRAGMA application_id = 1234; PRAGMA user_version = 1;");
  auto again = Store::open(path, {.host = "node1"});
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message.find("belongs to another application"), std::string::npos);
}

// A writer killed inside a transaction that uses the rollback journal (the switch to WAL on the
// very first start is one): the journal stays behind, hot, and a read-only look at the file
// cannot play it back.
void kill_a_writer_mid_transaction(const std::filesystem::path& path) {
  {
    RawDatabase raw(path);
    raw.exec("PRAGMA journal_mode = DELETE");
  }
  const pid_t child = ::fork();
  if (child == 0) {
    RawDatabase raw(path);
    // synchronous = OFF puts the journal's header down at once rather than at the commit, and a
    // one-page cache spills the changed pages into the database file before the end.
    raw.exec(
        "PRAGMA synchronous = OFF; PRAGMA cache_size = 1; BEGIN IMMEDIATE; "
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) "
        "INSERT INTO hosts (name) SELECT 'never-committed-' || i || printf('%.200c', 'x') FROM n;");
    ::_exit(0);  // as a SIGKILL would leave it: no rollback, no commit, the journal on disk
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_TRUE(std::filesystem::exists(path.string() + "-journal"));
}

TEST(Open, AWriterKilledMidTransactionIsRolledBackByTheNextWriter) {
  TempDir dir;
  const auto path = dir / "killed.db";
  {
    testing::open_store(path);
  }
  kill_a_writer_mid_transaction(path);

  const auto reader = Store::open(path, {.host = "node1", .read_only = true});
  ASSERT_FALSE(reader);
  EXPECT_NE(reader.error().message.find("was left mid-transaction by a writer that stopped"),
            std::string::npos)
      << reader.error().message;

  auto writer = Store::open(path, {.host = "node1"});
  ASSERT_TRUE(writer) << writer.error().message;
  EXPECT_EQ(writer->journal_mode(), "wal");
  RawDatabase raw(path);
  EXPECT_EQ(raw.integer("SELECT count(*) FROM hosts WHERE name LIKE 'never-committed%'"), 0);
  EXPECT_EQ(raw.text("PRAGMA integrity_check"), "ok");
}

TEST(Open, ACheckpointPutsWhatWasCommittedIntoTheDatabaseFileItself) {
  TempDir dir;
  Store store = testing::open_store(dir / "c.db");
  ASSERT_TRUE(write(store, {.device_samples = {testing::sample("GPU-a", testing::kT0, 5)}}));
  ASSERT_TRUE(store.checkpoint());
  // A copy of the main file alone, without its write-ahead log, has the row.
  std::filesystem::copy_file(dir / "c.db", dir / "copy.db");
  RawDatabase copy(dir / "copy.db");
  EXPECT_EQ(copy.integer("SELECT count(*) FROM device_samples"), 1);
}

TEST(Open, TheLogStaysAfterClosingSoThatReadersNeedNotCreateIt) {
  TempDir dir;
  {
    testing::open_store(dir / "p.db");
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "p.db-wal"));
  EXPECT_TRUE(std::filesystem::exists(dir / "p.db-shm"));
  // The companions get the database's own mode, and reopening accepts them.
  struct stat info{};
  ASSERT_EQ(::stat((dir / "p.db-shm").c_str(), &info), 0);
  struct stat database{};
  ASSERT_EQ(::stat((dir / "p.db").c_str(), &database), 0);
  EXPECT_EQ(info.st_mode & 0777U, database.st_mode & 0777U);
  EXPECT_TRUE(Store::open(dir / "p.db", {.host = "node1"}));
}

TEST(Open, ReadOnlyReadsWithoutWritingAndRefusesWrites) {
  TempDir dir;
  const auto path = dir / "r.db";
  {
    Store store = testing::open_store(path);
    ASSERT_TRUE(write(store, {.device_samples = {testing::sample("GPU-a", testing::kT0, 5)}}));
  }
  const std::string before = gpumeter::testing::read_bytes(path);
  auto reader = Store::open(path, {.host = "node1", .read_only = true});
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_EQ(reader->journal_mode(), "read-only");
  EXPECT_GT(reader->host_id(), 0);
  auto series = device_series(
      *reader,
      {.resolution = Resolution::samples, .since_us = testing::kT0, .until_us = testing::kT0 + 1});
  ASSERT_TRUE(series);
  EXPECT_EQ(series->size(), 1U);
  const auto written = write(*reader, {.device_samples = {testing::sample("GPU-a", 1, 5)}});
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().message.find("readonly"), std::string::npos) << written.error().message;
  EXPECT_EQ(gpumeter::testing::read_bytes(path), before);
  EXPECT_EQ(Store::open(path, {.host = "elsewhere", .read_only = true})->host_id(), 0);
}

TEST(Open, ReadOnlyNeedsAnExistingDatabaseOfThisSchema) {
  TempDir dir;
  const auto missing = Store::open(dir / "missing.db", {.read_only = true});
  ASSERT_FALSE(missing);
  EXPECT_FALSE(std::filesystem::exists(dir / "missing.db"));
  {
    RawDatabase raw(dir / "old.db");
    raw.exec("PRAGMA user_version = 1; CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER);");
  }
  const auto old = Store::open(dir / "old.db", {.read_only = true});
  ASSERT_FALSE(old);
  EXPECT_NE(old.error().message.find("open it for writing once"), std::string::npos)
      << old.error().message;
}

// The system database read by another user who was given group read access, as a report run
// by an operator would: a child process with another uid.
TEST(Open, AnotherUserInTheGroupCanReadTheSystemDatabase) {
  if (::geteuid() != 0) GTEST_SKIP() << "switching users needs root";
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  const auto path = dir / "lib/gpumeter.db";
  {
    Store store = testing::open_store(path, {.owner = {0, true}});
    ASSERT_TRUE(write(store, {.device_samples = {testing::sample("GPU-a", testing::kT0, 5)}}));
  }
  const pid_t child = ::fork();
  if (child == 0) {
    if (::setgid(0) != 0 || ::setuid(4242) != 0) ::_exit(10);
    auto reader = Store::open(path, {.host = "node1", .read_only = true});
    if (!reader) ::_exit(11);
    auto series = device_series(*reader, {.resolution = Resolution::samples,
                                          .since_us = testing::kT0,
                                          .until_us = testing::kT0 + 1});
    ::_exit(series && series->size() == 1 ? 0 : 12);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: setuid, 11: open, 12: query";
}

TEST(Open, IntegrityCheckOfASoundDatabaseFindsNothing) {
  TempDir dir;
  Store store = testing::open_store(dir / "ok.db");
  auto problems = store.integrity_check();
  ASSERT_TRUE(problems) << problems.error().message;
  EXPECT_TRUE(problems->empty());
}

}  // namespace gpumeter::store::open_test
