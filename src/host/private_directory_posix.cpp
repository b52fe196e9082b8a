// SPDX-License-Identifier: MIT
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "host/private_directory.h"

namespace gpumeter::host {
namespace {

Error io_error(const std::filesystem::path& dir, const char* what) {
  return {ErrorCode::io,
          fmt::format("cannot {} directory {}: {}", what, dir.string(), std::strerror(errno))};
}

Error refused(const std::filesystem::path& dir, const std::string& why) {
  return {ErrorCode::no_permission,
          fmt::format("refusing to use directory {}: {}; remove it or choose another directory",
                      dir.string(), why)};
}

std::expected<void, Error> check_private(const std::filesystem::path& dir,
                                         const struct stat& info) {
  if (S_ISLNK(info.st_mode)) return std::unexpected(refused(dir, "it is a symbolic link"));
  if (!S_ISDIR(info.st_mode)) return std::unexpected(refused(dir, "it is not a directory"));
  if (info.st_uid != geteuid()) {
    return std::unexpected(
        refused(dir, fmt::format("it is owned by uid {}, not by uid {}", info.st_uid, geteuid())));
  }
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return std::unexpected(
        refused(dir, fmt::format("others may write to it (mode {:o})", info.st_mode & 07777U)));
  }
  return {};
}

}  // namespace

std::vector<std::filesystem::path> default_state_directories(const char* xdg_runtime_dir,
                                                             unsigned uid,
                                                             const std::string& leaf) {
  std::filesystem::path base;
  if (xdg_runtime_dir != nullptr && std::filesystem::path(xdg_runtime_dir).is_absolute()) {
    base = std::filesystem::path(xdg_runtime_dir) / "gpumeter";
  } else {
    base = std::filesystem::path("/tmp") / fmt::format("gpumeter-{}", uid);
  }
  return {base, base / leaf};
}

std::vector<std::filesystem::path> default_state_directories(const std::string& leaf) {
  return default_state_directories(std::getenv("XDG_RUNTIME_DIR"), geteuid(), leaf);
}

std::expected<void, Error> ensure_private_directory(const std::filesystem::path& dir) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return std::unexpected(io_error(dir, "create"));
  struct stat info{};
  if (lstat(dir.c_str(), &info) != 0) return std::unexpected(io_error(dir, "examine"));
  return check_private(dir, info);
}

}  // namespace gpumeter::host
