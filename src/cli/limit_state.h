// SPDX-License-Identifier: MIT
// Where `gpumeter limit` records what `--clear` needs to undo a limit: one JSON file per
// limited process, STATE_DIR/limits/<pid>.json, in a directory only its owner may write to
// (the record names groups that `--clear` writes pids to).
#pragma once

#include <expected>
#include <filesystem>
#include <optional>
#include <string>

#include "cli/json.h"
#include "core/error.h"
#include "core/model.h"
#include "host/limit_cgroup.h"

namespace gpumeter::cli {

// STATE_DIR/limits: `state_dir` when given, else /var/lib/gpumeter for root and
// $XDG_STATE_HOME/gpumeter (~/.local/state/gpumeter) for others, as the daemon's.
// Errors: invalid_input when a user has no state directory.
std::expected<std::filesystem::path, Error> limit_records_directory(const std::string& state_dir);

// The record as JSON, and back. Errors: invalid_input naming what is wrong (a group that is
// not one of ours, "gpumeter-limit-<pid>", or a process without a group for each hierarchy).
Json limit_record_json(Pid pid, const host::LimitedGroup& group);
std::expected<host::LimitedGroup, Error> limit_record_from_json(const Json& json, Pid pid);

// Writes the record of `pid`, creating the directory (0700). Errors: no_permission when the
// directory is not private to us, io when it cannot be written.
std::expected<void, Error> save_limit_record(const std::filesystem::path& dir, Pid pid,
                                             const host::LimitedGroup& group);

// The record of `pid`; nullopt when there is none. Errors: as save, and invalid_input for a
// record that does not parse.
std::expected<std::optional<host::LimitedGroup>, Error> load_limit_record(
    const std::filesystem::path& dir, Pid pid);

// Removes the record of `pid` (none is fine).
void remove_limit_record(const std::filesystem::path& dir, Pid pid);

// "gpumeter-limit-<pid>": the group's name.
std::string limit_group_name(Pid pid);

}  // namespace gpumeter::cli
