// SPDX-License-Identifier: MIT
// The pid a scenario's `pid_file` holds: how a test names a real process that is started
// after the scenario was loaded (docs/scenarios.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace gpumeter::sim {

// The pid written in `path` (a decimal number, surrounding white space allowed) when the file
// exists, holds one and that process is alive now. Absent otherwise: not written yet, half
// written, garbage, or the process has exited.
std::optional<std::uint32_t> live_pid_in(const std::filesystem::path& path);

}  // namespace gpumeter::sim
