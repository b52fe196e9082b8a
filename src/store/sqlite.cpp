// SPDX-License-Identifier: MIT
#include "store/sqlite.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <tuple>
#include <utility>

namespace gpumeter::store::sqlite {
namespace {

Error make_error(sqlite3* handle, const std::filesystem::path& path, std::string_view doing) {
  if (doing.empty())
    return {ErrorCode::io, fmt::format("{}: {}", path.string(), sqlite3_errmsg(handle))};
  return {ErrorCode::io, fmt::format("{}: {}: {}", path.string(), doing, sqlite3_errmsg(handle))};
}

}  // namespace

Statement::Statement(Statement&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(other.path_) {}

Statement::~Statement() {
  sqlite3_finalize(handle_);
}

Statement& Statement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(handle_, index, value);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  sqlite3_bind_double(handle_, index, value);
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  sqlite3_bind_text64(handle_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return *this;
}

Statement& Statement::bind_null(int index) {
  sqlite3_bind_null(handle_, index);
  return *this;
}

std::expected<bool, Error> Statement::step() {
  const int result = sqlite3_step(handle_);
  if (result == SQLITE_ROW) return true;
  if (result == SQLITE_DONE) return false;
  Error error = make_error(sqlite3_db_handle(handle_), *path_, "");
  sqlite3_reset(handle_);
  return std::unexpected(std::move(error));
}

std::expected<void, Error> Statement::run() {
  for (;;) {
    auto row = step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) return {};
  }
}

void Statement::reset() noexcept {
  sqlite3_reset(handle_);
  sqlite3_clear_bindings(handle_);
}

bool Statement::is_null(int column) const noexcept {
  return sqlite3_column_type(handle_, column) == SQLITE_NULL;
}

std::int64_t Statement::int64(int column) const noexcept {
  return sqlite3_column_int64(handle_, column);
}

double Statement::real(int column) const noexcept {
  return sqlite3_column_double(handle_, column);
}

std::string Statement::text(int column) const {
  const auto* bytes = sqlite3_column_text(handle_, column);
  if (bytes == nullptr) return {};
  return {reinterpret_cast<const char*>(bytes),
          static_cast<std::size_t>(sqlite3_column_bytes(handle_, column))};
}

std::optional<std::int64_t> Statement::optional_int64(int column) const noexcept {
  if (is_null(column)) return std::nullopt;
  return int64(column);
}

std::optional<double> Statement::optional_real(int column) const noexcept {
  if (is_null(column)) return std::nullopt;
  return real(column);
}

std::optional<std::string> Statement::optional_text(int column) const {
  if (is_null(column)) return std::nullopt;
  return text(column);
}

std::expected<std::unique_ptr<Connection>, Error> Connection::open(
    const std::filesystem::path& path, int flags) {
  sqlite3* handle = nullptr;
  const int result = sqlite3_open_v2(path.c_str(), &handle, flags | SQLITE_OPEN_NOFOLLOW, nullptr);
  if (result != SQLITE_OK) {
    Error error{ErrorCode::io,
                fmt::format("{}: cannot open: {}", path.string(),
                            handle != nullptr ? sqlite3_errmsg(handle) : sqlite3_errstr(result))};
    sqlite3_close(handle);
    return std::unexpected(std::move(error));
  }
  sqlite3_extended_result_codes(handle, 0);
  return std::unique_ptr<Connection>(new Connection(handle, path));
}

Connection::~Connection() {
  cache_.clear();  // statements first: sqlite3_close refuses while any is unfinalised
  sqlite3_close(handle_);
}

std::expected<void, Error> Connection::exec(std::string_view sql) {
  const std::string text(sql);
  if (sqlite3_exec(handle_, text.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
    return std::unexpected(error(""));
  return {};
}

std::expected<Statement, Error> Connection::prepare(std::string_view sql) {
  sqlite3_stmt* handle = nullptr;
  if (sqlite3_prepare_v2(handle_, sql.data(), static_cast<int>(sql.size()), &handle, nullptr) !=
      SQLITE_OK) {
    return std::unexpected(error("preparing a statement"));
  }
  return Statement(handle, &path_);
}

std::expected<StatementLease, Error> Connection::cached(const std::string& sql) {
  auto found = cache_.find(sql);
  if (found == cache_.end()) {
    sqlite3_stmt* handle = nullptr;
    if (sqlite3_prepare_v3(handle_, sql.data(), static_cast<int>(sql.size()),
                           SQLITE_PREPARE_PERSISTENT, &handle, nullptr) != SQLITE_OK) {
      return std::unexpected(error("preparing a statement"));
    }
    found = cache_.emplace(sql, std::make_unique<Statement>(handle, &path_)).first;
  }
  return StatementLease(found->second.get());
}

std::expected<std::int64_t, Error> Connection::scalar(std::string_view sql) {
  auto statement = prepare(sql);
  if (!statement) return std::unexpected(std::move(statement.error()));
  auto row = statement->step();
  if (!row) return std::unexpected(std::move(row.error()));
  if (!*row) return std::unexpected(Error{ErrorCode::internal, fmt::format("no row: {}", sql)});
  return statement->int64(0);
}

void Connection::persist_wal() noexcept {
  int persist = 1;
  sqlite3_file_control(handle_, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
}

std::int64_t Connection::changes() const noexcept {
  return sqlite3_changes64(handle_);
}

int Connection::last_error_code() const noexcept {
  return sqlite3_errcode(handle_) & 0xFF;
}

Error Connection::error(std::string_view doing) const {
  return make_error(handle_, path_, doing);
}

std::expected<Transaction, Error> Transaction::begin(Connection& connection) {
  if (auto begun = connection.exec("BEGIN IMMEDIATE"); !begun)
    return std::unexpected(std::move(begun.error()));
  return Transaction(connection);
}

Transaction::Transaction(Transaction&& other) noexcept
    : connection_(std::exchange(other.connection_, nullptr)) {}

Transaction::~Transaction() {
  // After a failed COMMIT or an I/O error SQLite may already have rolled back; ROLLBACK then
  // fails harmlessly ("no transaction is active").
  if (connection_ != nullptr) std::ignore = connection_->exec("ROLLBACK");
}

std::expected<void, Error> Transaction::commit() {
  auto committed = connection_->exec("COMMIT");
  if (committed) connection_ = nullptr;
  return committed;
}

}  // namespace gpumeter::store::sqlite
