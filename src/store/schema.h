// SPDX-License-Identifier: MIT
// The database schema as a list of forward migrations. A database records the number of the
// last migration it went through in PRAGMA user_version; a new one goes through all of them.
// docs/store.md describes every table and column.
#pragma once

#include <expected>
#include <span>
#include <string_view>

#include "core/error.h"
#include "store/sqlite.h"

namespace gpumeter::store {

// One step from version `version - 1` to `version`: SQL run in one transaction together with
// the new user_version. A migration, once released, never changes; later changes are new steps.
struct Migration {
  int version = 0;
  std::string_view summary;  // for docs and logs
  std::string_view sql;
};

// Every migration, in order; the last one's version is the schema this build writes.
std::span<const Migration> migrations() noexcept;
int latest_schema_version() noexcept;

// Brings the database up to latest_schema_version(), one transaction per step. Each step
// re-reads the version under the write lock, so two processes opening a new database at once
// migrate it once. Precondition: the version was checked not to be newer than this build knows.
// Errors: io when a step fails (that step is rolled back; earlier steps stay).
std::expected<void, Error> migrate(sqlite::Connection& connection);

}  // namespace gpumeter::store
