// SPDX-License-Identifier: MIT
// A thin RAII layer over SQLite's C API: a connection, its prepared statements and an
// immediate transaction. Internal to src/store; every failure becomes an Error whose message
// names the database file and SQLite's own words. Not thread-safe: one connection per thread.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/error.h"

struct sqlite3;
struct sqlite3_stmt;

namespace gpumeter::store::sqlite {

// SQLite's primary result codes the store tells apart (values from sqlite3.h).
inline constexpr int kFull = 13;
inline constexpr int kNotADatabase = 26;
inline constexpr int kCorrupt = 11;

class Statement {
 public:
  Statement(sqlite3_stmt* handle, const std::filesystem::path* path) noexcept
      : handle_(handle), path_(path) {}
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Parameters are 1-based, as in SQLite. An absent optional binds NULL.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind_null(int index);
  template <class T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  // Binds every argument in order, from parameter 1.
  template <class... Args>
  Statement& bind_all(const Args&... args) {
    int index = 0;
    (bind(++index, args), ...);
    return *this;
  }

  // Runs one step: true when a row is ready to read, false when the statement is done.
  // Errors: io, with SQLite's message (the statement is reset).
  std::expected<bool, Error> step();
  // Steps until done, for statements that return no rows.
  std::expected<void, Error> run();
  // Clears bindings and rewinds, so that a cached statement can be used again.
  void reset() noexcept;

  bool is_null(int column) const noexcept;
  std::int64_t int64(int column) const noexcept;
  double real(int column) const noexcept;
  std::string text(int column) const;
  std::optional<std::int64_t> optional_int64(int column) const noexcept;
  // optional_int64 as an unsigned id or size (a uid, a pid, a byte count).
  template <class T>
  std::optional<T> optional_as(int column) const noexcept {
    const std::optional<std::int64_t> value = optional_int64(column);
    if (!value) return std::nullopt;
    return static_cast<T>(*value);
  }
  std::optional<double> optional_real(int column) const noexcept;
  std::optional<std::string> optional_text(int column) const;

 private:
  sqlite3_stmt* handle_;
  const std::filesystem::path* path_;  // of the owning connection, for messages
};

// A cached statement lent out until the end of a scope; it is reset (bindings cleared, any
// read it holds released) when the lease ends, so that no half-stepped query keeps a read
// transaction open.
class StatementLease {
 public:
  explicit StatementLease(Statement* statement) noexcept : statement_(statement) {}
  StatementLease(StatementLease&& other) noexcept
      : statement_(std::exchange(other.statement_, nullptr)) {}
  StatementLease& operator=(StatementLease&&) = delete;
  StatementLease(const StatementLease&) = delete;
  StatementLease& operator=(const StatementLease&) = delete;
  ~StatementLease() {
    if (statement_ != nullptr) statement_->reset();
  }

  Statement* operator->() const noexcept { return statement_; }
  Statement& operator*() const noexcept { return *statement_; }

 private:
  Statement* statement_;
};

class Connection {
 public:
  // Opens `path` with sqlite3_open_v2 `flags`; a symbolic link is refused (SQLITE_OPEN_NOFOLLOW
  // is always added). Nothing is read or written yet.
  // Errors: io when SQLite cannot open the file.
  static std::expected<std::unique_ptr<Connection>, Error> open(const std::filesystem::path& path,
                                                                int flags);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs one or more statements that return no rows.
  std::expected<void, Error> exec(std::string_view sql);
  // A new statement, finalised when it goes out of scope.
  std::expected<Statement, Error> prepare(std::string_view sql);
  // A statement prepared once and kept for the connection's lifetime, lent reset and unbound.
  // Errors: io when `sql` does not compile.
  std::expected<StatementLease, Error> cached(const std::string& sql);

  // The single integer a PRAGMA or a scalar query answers.
  std::expected<std::int64_t, Error> scalar(std::string_view sql);

  // Keeps the -wal and -shm files when the last connection closes (SQLITE_FCNTL_PERSIST_WAL),
  // so that readers who may not create files in the directory can still open the database.
  void persist_wal() noexcept;

  std::int64_t changes() const noexcept;
  // The primary result code of the last failure on this connection.
  int last_error_code() const noexcept;
  const std::filesystem::path& path() const noexcept { return path_; }
  Error error(std::string_view doing) const;

 private:
  Connection(sqlite3* handle, std::filesystem::path path) noexcept
      : handle_(handle), path_(std::move(path)) {}

  sqlite3* handle_;
  std::filesystem::path path_;
  std::unordered_map<std::string, std::unique_ptr<Statement>> cache_;
};

// BEGIN IMMEDIATE (the write lock, waiting up to the busy timeout) ... COMMIT; rolled back on
// destruction unless committed.
class Transaction {
 public:
  // Errors: io when the lock cannot be taken (another writer held it past the busy timeout).
  static std::expected<Transaction, Error> begin(Connection& connection);
  Transaction(Transaction&& other) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  std::expected<void, Error> commit();

 private:
  explicit Transaction(Connection& connection) noexcept : connection_(&connection) {}
  Connection* connection_;
};

}  // namespace gpumeter::store::sqlite
