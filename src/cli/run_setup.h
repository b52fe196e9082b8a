// SPDX-License-Identifier: MIT
// What `gpumeter run` prepares before it starts the command: the GPU side (or why there is
// none), the cgroup (required with limits, else taken when the kernel allows), and the place
// of the JSON document.
#pragma once

#include <expected>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "cli/run_options.h"
#include "cli/session.h"
#include "core/error.h"
#include "host/run_cgroup.h"

namespace gpumeter::cli {

struct GpuSide {
  std::optional<Session> session;
  std::string missing;  // why there is no session: "no GPU found: ..."
};

// The sources of `options`: a bad scenario is an error; a missing driver only means that
// there will be no GPU figures.
std::expected<GpuSide, Error> open_gpu_side(const GlobalOptions& options);

// The run's cgroup, made below ours (host/run_cgroup.h), named gpumeter-run-<our pid>. With
// limits, failing is an error that says what is missing and how to get it; without, the run
// goes on without a cgroup (null). None at all with --no-cgroup.
std::expected<std::unique_ptr<host::RunCgroup>, Error> make_run_cgroup(const RunSettings& settings);

// Whether the JSON document can be written, checked before the command runs; a file that
// did not exist is not left behind. Errors: io, naming the file.
std::expected<void, Error> check_writable(const std::filesystem::path& file);

// Writes the document. Errors: io, naming the file.
std::expected<void, Error> write_document(const std::filesystem::path& file,
                                          const std::string& text);

}  // namespace gpumeter::cli
