// SPDX-License-Identifier: MIT
#include "store/meta.h"

#include <string>

namespace gpumeter::store::meta {
namespace {

std::expected<void, Error> run(sqlite::Connection& connection, const std::string& sql,
                               std::string_view key, std::int64_t value) {
  auto statement = connection.cached(sql);
  if (!statement) return std::unexpected(std::move(statement.error()));
  return (*statement)->bind_all(key, value).run();
}

}  // namespace

std::string recorded_until_key(std::int64_t host_id) {
  return "recorded_until_us." + std::to_string(host_id);
}

std::expected<std::optional<std::int64_t>, Error> read(sqlite::Connection& connection,
                                                       std::string_view key) {
  auto statement = connection.cached("SELECT value FROM meta WHERE key = ?1");
  if (!statement) return std::unexpected(std::move(statement.error()));
  (*statement)->bind_all(key);
  auto row = (*statement)->step();
  if (!row) return std::unexpected(std::move(row.error()));
  if (!*row) return std::nullopt;
  return (*statement)->int64(0);
}

std::expected<void, Error> write(sqlite::Connection& connection, std::string_view key,
                                 std::int64_t value) {
  return run(connection, "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)", key, value);
}

std::expected<void, Error> lower(sqlite::Connection& connection, std::string_view key,
                                 std::int64_t value) {
  return run(connection, "UPDATE meta SET value = MIN(value, ?2) WHERE key = ?1", key, value);
}

std::expected<void, Error> raise(sqlite::Connection& connection, std::string_view key,
                                 std::int64_t value) {
  return run(connection,
             "INSERT INTO meta (key, value) VALUES (?1, ?2) "
             "ON CONFLICT (key) DO UPDATE SET value = MAX(value, excluded.value)",
             key, value);
}

}  // namespace gpumeter::store::meta
