// SPDX-License-Identifier: MIT
// Where gpumeter's files lie relative to the running executable. The build tree mirrors the
// install tree: <prefix>/bin/gpumeter, and in <prefix>/lib/gpumeter/ the executable of the
// commands that need the network libraries (gpumeter-serve) and the simulated driver
// (sim/libnvidia-ml.so.1).
#pragma once

#include <expected>
#include <filesystem>
#include <string_view>

#include "core/error.h"

namespace gpumeter::cli {

inline constexpr std::string_view kServeExecutableName = "gpumeter-serve";

// The running executable, through /proc/self/exe. Errors: ErrorCode::io.
std::expected<std::filesystem::path, Error> own_executable();

// <prefix>/lib/gpumeter, from either executable's path.
std::filesystem::path private_directory(const std::filesystem::path& executable);

// The simulated libnvidia-ml.so.1 and gpumeter-serve, from either executable's path.
std::filesystem::path simulated_library_path(const std::filesystem::path& executable);
std::filesystem::path serve_executable_path(const std::filesystem::path& executable);

}  // namespace gpumeter::cli
