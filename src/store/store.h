// SPDX-License-Identifier: MIT
// The history store: one SQLite database file that keeps GPUs, their samples in three tiers,
// the ledger of processes' GPU use and task results (docs/store.md). A Store is one
// connection; it is not thread-safe, so each thread that writes or queries opens its own
// (WAL mode lets readers and one writer work at once).
//
// Writing: store/write.h (one batch per transaction) or store/writer.h (the queue the daemon
// feeds). Keeping tiers: store/maintenance.h. Reading: store/history.h, store/usage.h.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "store/location.h"

namespace gpumeter::store {

namespace sqlite {
class Connection;
}

// The page cache a long-lived process gives each of its connections (OpenOptions), KiB.
inline constexpr std::uint32_t kLongLivedPageCacheKib = 512;

struct OpenOptions {
  // The name of this machine, recorded with every row written (the ledger is keyed by host,
  // pid, start time and GPU). Empty: gethostname().
  std::string host;
  // How long a write waits for another process's write to finish before failing.
  std::chrono::milliseconds busy_timeout{5000};
  // A cap on the database's size; writes beyond it fail as on a full disk (see Writer).
  std::optional<std::uint64_t> max_size_bytes;
  // Who owns the file (see prepare_database_path); the process's effective uid by default.
  Owner owner = current_owner();
  // For reports: opens an existing database without writing anything, whoever owns it
  // (check_database_for_reading). Its schema must be this build's; writes fail.
  bool read_only = false;
  // The connection's page cache, KiB; absent: SQLite's default (2,000 KiB). A long-lived
  // process that mostly appends (the daemon) keeps it small: the kernel's file cache holds
  // the file's pages anyway, and each connection's cache stays resident once filled.
  std::optional<std::uint32_t> page_cache_kib;
};

class Store {
 public:
  // Opens the database at `path`, creating it (and its directory) if needed, then brings its
  // schema up to date. Before anything is written, the file is read through a read-only
  // connection: a file that is not an SQLite database, is damaged, belongs to another
  // application, or was written by a newer gpumeter is refused and left exactly as it was.
  // The connection then uses WAL mode, synchronous=NORMAL, foreign keys and `busy_timeout`.
  // With options.read_only, nothing is created, migrated or written; host_id() is the host's
  // id if it ever wrote there, else 0.
  // Errors: no_permission from prepare_database_path; invalid_input for a file that is not a
  // gpumeter database or has a newer schema (the message says the file was not modified), or,
  // read-only, an older schema (it must be opened for writing once, to migrate it);
  // io when SQLite cannot open, read or migrate it.
  static std::expected<Store, Error> open(const std::filesystem::path& path,
                                          const OpenOptions& options = {});

  Store(Store&& other) noexcept;
  Store& operator=(Store&& other) noexcept;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  ~Store();

  // The file opened (its directory resolved).
  const std::filesystem::path& path() const noexcept;
  const std::string& host() const noexcept;
  std::int64_t host_id() const noexcept;
  // "wal", "read-only" for a store opened read-only, or what the file system allowed instead (WAL
  // needs shared memory, which network file systems may not offer); worth a warning in the log when
  // not "wal".
  const std::string& journal_mode() const noexcept;

  // Caps the file's size (rounded down to whole pages, never below its current size); absent
  // lifts the cap.
  std::expected<void, Error> set_max_size(std::optional<std::uint64_t> bytes);

  // Bytes in use by the database (pages in use, not the free pages SQLite keeps for reuse),
  // and the file's size in pages times page size.
  struct Size {
    std::uint64_t used_bytes = 0;
    std::uint64_t file_bytes = 0;
  };
  std::expected<Size, Error> size();

  // PRAGMA integrity_check: the problems found, none when the database is sound.
  std::expected<std::vector<std::string>, Error> integrity_check();

  // A passive checkpoint: syncs the write-ahead log to disk, then copies into the database file
  // what no reader still needs. Never waits for readers. After it, a power loss cannot take
  // back anything committed before it (docs/store.md, "Crash safety"); a daemon may call it
  // every few minutes to bound that window by time.
  std::expected<void, Error> checkpoint();

  // For the store's own modules.
  sqlite::Connection& connection() noexcept;

 private:
  struct State;
  explicit Store(std::unique_ptr<State> state) noexcept;
  static std::expected<Store, Error> open_for_writing(const std::filesystem::path& path,
                                                      const OpenOptions& options);
  static std::expected<Store, Error> open_for_reading(const std::filesystem::path& path,
                                                      const OpenOptions& options);
  std::unique_ptr<State> state_;
};

// The application_id gpumeter stamps in its database header ("gpmt").
inline constexpr std::int64_t kApplicationId = 0x67706D74;

// The memory SQLite holds in this process, over every connection (page caches, schemas,
// prepared statements); absent where the library was built without its memory statistics.
std::optional<std::uint64_t> sqlite_memory_bytes() noexcept;

}  // namespace gpumeter::store
