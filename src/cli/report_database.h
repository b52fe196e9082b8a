// SPDX-License-Identifier: MIT
// Which history database `gpumeter report` reads, and opening it for reading only.
//
// `--database PATH`, else GPUMETER_DATABASE, names the one file to read. Otherwise root reads
// the system database (/var/lib/gpumeter/gpumeter.db); any other user reads their own
// ($XDG_STATE_HOME/gpumeter/gpumeter.db) when it exists, else the system database: a user who
// never recorded anything sees what the daemon recorded, if the file's group lets them read it.
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <vector>

#include "core/error.h"
#include "store/location.h"
#include "store/store.h"

namespace gpumeter::cli {

// The files to try, in order.
std::vector<std::filesystem::path> report_database_candidates(
    const std::optional<std::filesystem::path>& database, const store::LocationEnvironment& env);

// Opens the first candidate that exists, read-only (nothing is created or written).
// Errors (all invalid_input, so that reports exit 2): none exists, naming every path tried
// and how history gets recorded; the file is not readable by this user; and those of
// store::Store::open (not a gpumeter database, a schema to migrate, ...).
std::expected<store::Store, Error> open_report_database(
    const std::vector<std::filesystem::path>& candidates);

}  // namespace gpumeter::cli
