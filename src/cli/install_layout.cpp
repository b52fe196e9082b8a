// SPDX-License-Identifier: MIT
#include "cli/install_layout.h"

#include <fmt/format.h>

#include <system_error>

namespace gpumeter::cli {

std::expected<std::filesystem::path, Error> own_executable() {
  std::error_code error;
  std::filesystem::path path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    return std::unexpected(
        Error{ErrorCode::io,
              fmt::format("cannot locate the gpumeter executable through /proc/self/exe: {}",
                          error.message())});
  }
  return path;
}

std::filesystem::path private_directory(const std::filesystem::path& executable) {
  // gpumeter-serve lives in the directory itself; gpumeter in the bin/ beside its lib/.
  if (executable.filename() == kServeExecutableName) return executable.parent_path();
  return (executable.parent_path() / ".." / "lib" / "gpumeter").lexically_normal();
}

std::filesystem::path simulated_library_path(const std::filesystem::path& executable) {
  return private_directory(executable) / "sim" / "libnvidia-ml.so.1";
}

std::filesystem::path serve_executable_path(const std::filesystem::path& executable) {
  return private_directory(executable) / kServeExecutableName;
}

}  // namespace gpumeter::cli
