// SPDX-License-Identifier: MIT
#include "store/store.h"

#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "store/schema.h"
#include "store/sqlite.h"

namespace gpumeter::store {

struct Store::State {
  std::unique_ptr<sqlite::Connection> connection;
  std::string host;
  std::int64_t host_id = 0;
  std::string journal_mode;
};

namespace {

namespace fs = std::filesystem;

Error not_a_database(const fs::path& path, const std::string& why) {
  return {ErrorCode::invalid_input,
          fmt::format("{} is not a gpumeter database or is damaged ({}); it was not modified",
                      path.string(), why)};
}

// A lock held past the busy timeout is only that; anything else means the file is no database.
Error unreadable(const sqlite::Connection& connection, const Error& error) {
  if (connection.last_error_code() == SQLITE_BUSY) return error;
  return not_a_database(connection.path(), sqlite3_errstr(connection.last_error_code()));
}

struct Probe {
  std::expected<std::int64_t, Error> version;  // the schema version
  // A writer stopped mid-transaction (killed, power lost): a rollback journal to play back or a
  // log index to rebuild, which SQLite refuses a read-only connection (SQLITE_READONLY_ROLLBACK,
  // _RECOVERY) and does itself on a writing connection's first read.
  bool needs_recovery = false;
};

// What a look at the file tells, without a write of ours: refusals leave the file as it was.
Probe probe(const fs::path& path, int open_flags, std::chrono::milliseconds busy_timeout) {
  auto connection = sqlite::Connection::open(path, open_flags);
  if (!connection) return {std::unexpected(std::move(connection.error()))};
  if (auto set = (*connection)->exec(fmt::format("PRAGMA busy_timeout = {}", busy_timeout.count()));
      !set) {
    return {std::unexpected(std::move(set.error()))};
  }
  sqlite::Connection& probe = **connection;
  const auto failed = [&probe](const Error& error) {
    return Probe{std::unexpected(unreadable(probe, error)),
                 probe.last_error_code() == SQLITE_READONLY};
  };
  // The first read of the file: a file that is not a database fails here.
  const auto version = probe.scalar("PRAGMA user_version");
  if (!version) return failed(version.error());
  const auto application = probe.scalar("PRAGMA application_id");
  if (!application) return failed(application.error());
  const auto objects = probe.scalar("SELECT count(*) FROM sqlite_schema");
  if (!objects) return failed(objects.error());
  if (*version > latest_schema_version()) {
    return {std::unexpected(Error{
        ErrorCode::invalid_input,
        fmt::format("{} was written by a newer gpumeter (schema {}; this one knows up to {}); it "
                    "was not modified",
                    path.string(), *version, latest_schema_version())})};
  }
  if (*application != 0 && *application != kApplicationId)
    return {std::unexpected(not_a_database(path, "it belongs to another application"))};
  if (*version == 0 && *objects > 0)
    return {std::unexpected(not_a_database(path, "it is an SQLite database of something else"))};
  return {*version};
}

std::expected<std::string, Error> configure(sqlite::Connection& connection,
                                            std::chrono::milliseconds busy_timeout) {
  if (auto set = connection.exec(fmt::format("PRAGMA busy_timeout = {}", busy_timeout.count()));
      !set) {
    return std::unexpected(std::move(set.error()));
  }
  auto mode = connection.prepare("PRAGMA journal_mode = WAL");
  if (!mode) return std::unexpected(std::move(mode.error()));
  auto row = mode->step();
  if (!row) return std::unexpected(std::move(row.error()));
  std::string journal_mode = *row ? mode->text(0) : "unknown";
  // Readers of the system database (a group with read access) cannot create the -shm file in
  // its directory: keep it, and the log, for them.
  connection.persist_wal();
  // NORMAL: in WAL mode a commit survives the process being killed; only a power loss or an
  // OS crash can take back the last commits (docs/store.md).
  if (auto set = connection.exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; "
                                 "PRAGMA journal_size_limit = 67108864;");
      !set) {
    return std::unexpected(std::move(set.error()));
  }
  return journal_mode;
}

std::expected<void, Error> set_page_cache(sqlite::Connection& connection,
                                          std::optional<std::uint32_t> kib) {
  if (!kib) return {};
  // A negative cache_size is in KiB rather than in pages.
  return connection.exec(fmt::format("PRAGMA cache_size = -{}", std::max<std::uint32_t>(*kib, 1)));
}

std::string this_host() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "localhost";
  return name.data();
}

std::expected<std::int64_t, Error> register_host(sqlite::Connection& connection,
                                                 const std::string& host) {
  auto insert = connection.prepare(
      "INSERT INTO hosts (name) VALUES (?1) ON CONFLICT (name) DO UPDATE SET name = name "
      "RETURNING id");
  if (!insert) return std::unexpected(std::move(insert.error()));
  insert->bind_all(std::string_view(host));
  auto row = insert->step();
  if (!row) return std::unexpected(std::move(row.error()));
  return insert->int64(0);
}

std::expected<std::int64_t, Error> find_host(sqlite::Connection& connection,
                                             const std::string& host) {
  auto find = connection.prepare("SELECT id FROM hosts WHERE name = ?1");
  if (!find) return std::unexpected(std::move(find.error()));
  find->bind_all(std::string_view(host));
  auto row = find->step();
  if (!row) return std::unexpected(std::move(row.error()));
  return *row ? find->int64(0) : 0;
}

std::expected<void, Error> stamp_application(sqlite::Connection& connection) {
  auto application = connection.scalar("PRAGMA application_id");
  if (!application) return std::unexpected(std::move(application.error()));
  if (*application == kApplicationId) return {};
  return connection.exec(fmt::format("PRAGMA application_id = {}", kApplicationId));
}

}  // namespace

std::expected<Store, Error> Store::open(const fs::path& path, const OpenOptions& options) {
  return options.read_only ? open_for_reading(path, options) : open_for_writing(path, options);
}

std::expected<Store, Error> Store::open_for_writing(const fs::path& path,
                                                    const OpenOptions& options) {
  auto prepared = prepare_database_path(path, options.owner);
  if (!prepared) return std::unexpected(std::move(prepared.error()));
  Probe probed = probe(*prepared, SQLITE_OPEN_READONLY, options.busy_timeout);
  // SQLite's recovery only brings back the last commit, so the second look writes nothing of ours
  // either.
  if (probed.needs_recovery) probed = probe(*prepared, SQLITE_OPEN_READWRITE, options.busy_timeout);
  if (!probed.version) return std::unexpected(std::move(probed.version.error()));
  auto connection = sqlite::Connection::open(*prepared, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  if (!connection) return std::unexpected(std::move(connection.error()));
  auto state = std::make_unique<State>();
  state->connection = std::move(*connection);
  auto journal_mode = configure(*state->connection, options.busy_timeout);
  if (!journal_mode) return std::unexpected(std::move(journal_mode.error()));
  if (auto cached = set_page_cache(*state->connection, options.page_cache_kib); !cached)
    return std::unexpected(std::move(cached.error()));
  state->journal_mode = std::move(*journal_mode);
  if (auto migrated = migrate(*state->connection); !migrated)
    return std::unexpected(std::move(migrated.error()));
  if (auto stamped = stamp_application(*state->connection); !stamped)
    return std::unexpected(std::move(stamped.error()));
  state->host = options.host.empty() ? this_host() : options.host;
  auto id = register_host(*state->connection, state->host);
  if (!id) return std::unexpected(std::move(id.error()));
  state->host_id = *id;
  Store store(std::move(state));
  if (auto capped = store.set_max_size(options.max_size_bytes); !capped)
    return std::unexpected(std::move(capped.error()));
  return store;
}

std::expected<Store, Error> Store::open_for_reading(const fs::path& path,
                                                    const OpenOptions& options) {
  auto checked = check_database_for_reading(path);
  if (!checked) return std::unexpected(std::move(checked.error()));
  Probe probed = probe(*checked, SQLITE_OPEN_READONLY, options.busy_timeout);
  if (probed.needs_recovery) {
    return std::unexpected(Error{
        ErrorCode::invalid_input,
        fmt::format("{} was left mid-transaction by a writer that stopped (killed, or the power "
                    "failed): open it for writing once (start the daemon) to recover it",
                    checked->string())});
  }
  const auto& version = probed.version;
  if (!version) return std::unexpected(version.error());
  if (*version < latest_schema_version()) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              fmt::format("{} has schema {} and this gpumeter reads schema {}: open it for writing "
                          "once (start the daemon) to migrate it",
                          checked->string(), *version, latest_schema_version())});
  }
  auto connection = sqlite::Connection::open(*checked, SQLITE_OPEN_READONLY);
  if (!connection) return std::unexpected(std::move(connection.error()));
  auto state = std::make_unique<State>();
  state->connection = std::move(*connection);
  if (auto set = state->connection->exec(
          fmt::format("PRAGMA busy_timeout = {}", options.busy_timeout.count()));
      !set) {
    return std::unexpected(std::move(set.error()));
  }
  if (auto cached = set_page_cache(*state->connection, options.page_cache_kib); !cached)
    return std::unexpected(std::move(cached.error()));
  state->journal_mode = "read-only";
  state->host = options.host.empty() ? this_host() : options.host;
  auto id = find_host(*state->connection, state->host);
  if (!id) return std::unexpected(std::move(id.error()));
  state->host_id = *id;
  return Store(std::move(state));
}

Store::Store(std::unique_ptr<State> state) noexcept : state_(std::move(state)) {}
Store::Store(Store&& other) noexcept = default;
Store& Store::operator=(Store&& other) noexcept = default;
Store::~Store() = default;

const fs::path& Store::path() const noexcept {
  return state_->connection->path();
}
const std::string& Store::host() const noexcept {
  return state_->host;
}
std::int64_t Store::host_id() const noexcept {
  return state_->host_id;
}
const std::string& Store::journal_mode() const noexcept {
  return state_->journal_mode;
}
sqlite::Connection& Store::connection() noexcept {
  return *state_->connection;
}

std::expected<void, Error> Store::set_max_size(std::optional<std::uint64_t> bytes) {
  // SQLite's own ceiling on pages; also what the pragma falls back to.
  constexpr std::uint64_t kNoCap = 0xFFFFFFFE;
  auto page_size = connection().scalar("PRAGMA page_size");
  if (!page_size) return std::unexpected(std::move(page_size.error()));
  const std::uint64_t pages =
      bytes ? std::max<std::uint64_t>(1, *bytes / static_cast<std::uint64_t>(*page_size)) : kNoCap;
  return connection().exec(fmt::format("PRAGMA max_page_count = {}", pages));
}

std::expected<Store::Size, Error> Store::size() {
  auto page_size = connection().scalar("PRAGMA page_size");
  auto pages = connection().scalar("PRAGMA page_count");
  auto free_pages = connection().scalar("PRAGMA freelist_count");
  if (!page_size || !pages || !free_pages) {
    return std::unexpected(connection().error("reading the database size"));
  }
  return Size{static_cast<std::uint64_t>((*pages - *free_pages) * *page_size),
              static_cast<std::uint64_t>(*pages * *page_size)};
}

std::expected<std::vector<std::string>, Error> Store::integrity_check() {
  auto check = connection().prepare("PRAGMA integrity_check");
  if (!check) return std::unexpected(std::move(check.error()));
  std::vector<std::string> problems;
  for (;;) {
    auto row = check->step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) break;
    if (std::string line = check->text(0); line != "ok") problems.push_back(std::move(line));
  }
  return problems;
}

std::expected<void, Error> Store::checkpoint() {
  return connection().exec("PRAGMA wal_checkpoint(PASSIVE)");
}

std::optional<std::uint64_t> sqlite_memory_bytes() noexcept {
  sqlite3_int64 current = 0;
  sqlite3_int64 highest = 0;
  if (sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &current, &highest, 0) != SQLITE_OK ||
      highest == 0) {
    return std::nullopt;  // statistics off: nothing was ever counted
  }
  return static_cast<std::uint64_t>(current);
}

}  // namespace gpumeter::store
