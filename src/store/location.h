// SPDX-License-Identifier: MIT
// Where the history database lives, and the checks that make opening it safe: the directory
// and the file are created with modes that keep other users out, and a path that someone else
// could have planted (a symbolic link, a file another user owns, a directory others may write
// to) is refused, never followed.
#pragma once

#include <expected>
#include <filesystem>

#include "core/error.h"

namespace gpumeter::store {

struct LocationEnvironment {
  const char* gpumeter_database = nullptr;  // GPUMETER_DATABASE: an explicit path
  const char* xdg_state_home = nullptr;     // XDG_STATE_HOME
  const char* home = nullptr;               // HOME
  bool root = false;                        // the effective uid is 0
};

// The environment of this process.
LocationEnvironment location_environment() noexcept;

// The system database's directory: root's default.
inline constexpr const char* kSystemDatabaseDirectory = "/var/lib/gpumeter";
inline constexpr const char* kDatabaseFileName = "gpumeter.db";

// GPUMETER_DATABASE when set; else /var/lib/gpumeter/gpumeter.db for root; else
// $XDG_STATE_HOME/gpumeter/gpumeter.db, where XDG_STATE_HOME defaults to ~/.local/state (a
// relative XDG_STATE_HOME is ignored, as the XDG specification says).
// Errors: invalid_input when a user has neither an absolute XDG_STATE_HOME nor HOME.
std::expected<std::filesystem::path, Error> default_database_path(const LocationEnvironment& env);

// Who will write the database: the checks compare owners with `uid`; `system` selects the
// system database's modes (directory 0755, file 0640, so that a group may be given read access)
// over a user's (directory 0700, file 0600).
struct Owner {
  unsigned uid = 0;
  bool system = false;
};

// The effective uid of this process; system when it is root.
Owner current_owner() noexcept;

// Makes `database` safe to open for writing: creates its missing directories (0755 for a
// system owner, 0700 otherwise) and the file itself (0640 / 0600, narrowed by the umask) when
// it does not exist, so that SQLite never creates it with looser modes. Then checks:
//  - the directory is a real directory, owned by `owner.uid` or root, writable by nobody else
//    (else another user could replace the file or plant its -wal/-shm companions);
//  - the file and any -wal/-shm companion is a regular file (not a symbolic link), with one
//    link, owned by `owner.uid`, writable by nobody else.
// Returns the path to open: `database` with its directory resolved (no symbolic link left).
// Errors: no_permission naming the path and what is wrong with it; io when a directory or the
// file cannot be created or examined.
std::expected<std::filesystem::path, Error> prepare_database_path(
    const std::filesystem::path& database, const Owner& owner);

// For reading only (reports, possibly by another user than the writer): `database` must exist
// and be a regular file, reached without a symbolic link in its last component; its owner and
// modes are the writer's business. Returns the path with its directory resolved.
// Errors: io when it does not exist or cannot be examined; no_permission when it is a symbolic
// link or not a regular file.
std::expected<std::filesystem::path, Error> check_database_for_reading(
    const std::filesystem::path& database);

}  // namespace gpumeter::store
