// SPDX-License-Identifier: MIT
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "store/location.h"

namespace gpumeter::store {
namespace {

namespace fs = std::filesystem;

Error io_error(const fs::path& path, std::string_view doing) {
  return {ErrorCode::io,
          fmt::format("cannot {} {}: {}", doing, path.string(), std::strerror(errno))};
}

Error refused(const fs::path& path, std::string_view why) {
  return {ErrorCode::no_permission,
          fmt::format("refusing to use {} for the gpumeter database: {}; fix it or choose another "
                      "path",
                      path.string(), why)};
}

bool set(const char* value) {
  return value != nullptr && *value != '\0';
}

constexpr mode_t kOthersWrite = S_IWGRP | S_IWOTH;

std::expected<void, Error> create_directories(const fs::path& dir, mode_t mode) {
  fs::path partial;
  for (const fs::path& part : dir) {
    partial /= part;
    if (mkdir(partial.c_str(), mode) != 0 && errno != EEXIST)
      return std::unexpected(io_error(partial, "create directory"));
  }
  return {};
}

// Every directory on the way to `dir` must be owned by root or the owner, and may be writable
// by others only with the sticky bit (like /tmp), so nobody else can rename what lies below.
std::expected<void, Error> check_ancestors(const fs::path& dir, const Owner& owner) {
  fs::path partial;
  for (const fs::path& part : dir) {
    partial /= part;
    struct stat info{};
    if (lstat(partial.c_str(), &info) != 0) return std::unexpected(io_error(partial, "examine"));
    if (info.st_uid != 0 && info.st_uid != owner.uid) {
      return std::unexpected(refused(partial, fmt::format("it is owned by uid {}", info.st_uid)));
    }
    const bool last = partial == dir;
    if ((info.st_mode & kOthersWrite) != 0 && (last || (info.st_mode & S_ISVTX) == 0)) {
      return std::unexpected(refused(
          partial, fmt::format("others may write to it (mode {:o})", info.st_mode & 07777U)));
    }
  }
  return {};
}

std::expected<void, Error> check_file(const fs::path& file, const struct stat& info,
                                      const Owner& owner) {
  if (S_ISLNK(info.st_mode)) return std::unexpected(refused(file, "it is a symbolic link"));
  if (!S_ISREG(info.st_mode)) return std::unexpected(refused(file, "it is not a regular file"));
  if (info.st_nlink != 1) {
    return std::unexpected(refused(file, fmt::format("it has {} hard links", info.st_nlink)));
  }
  if (info.st_uid != owner.uid) {
    return std::unexpected(
        refused(file, fmt::format("it is owned by uid {}, not by uid {}", info.st_uid, owner.uid)));
  }
  if ((info.st_mode & kOthersWrite) != 0) {
    return std::unexpected(
        refused(file, fmt::format("others may write to it (mode {:o})", info.st_mode & 07777U)));
  }
  return {};
}

// Creates the file unless it exists; never through a symbolic link.
std::expected<void, Error> create_file(const fs::path& file, mode_t mode) {
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    if (errno == EEXIST) return {};
    return std::unexpected(io_error(file, "create"));
  }
  close(fd);
  return {};
}

std::expected<void, Error> check_files(const fs::path& database, const Owner& owner) {
  const std::array<fs::path, 3> files{database, fs::path(database.string() + "-wal"),
                                      fs::path(database.string() + "-shm")};
  for (const fs::path& file : files) {
    struct stat info{};
    if (lstat(file.c_str(), &info) != 0) {
      if (errno == ENOENT && file != database) continue;
      return std::unexpected(io_error(file, "examine"));
    }
    if (auto checked = check_file(file, info, owner); !checked) return checked;
  }
  return {};
}

}  // namespace

LocationEnvironment location_environment() noexcept {
  return LocationEnvironment{std::getenv("GPUMETER_DATABASE"), std::getenv("XDG_STATE_HOME"),
                             std::getenv("HOME"), geteuid() == 0};
}

std::expected<fs::path, Error> default_database_path(const LocationEnvironment& env) {
  if (set(env.gpumeter_database)) return fs::path(env.gpumeter_database);
  if (env.root) return fs::path(kSystemDatabaseDirectory) / kDatabaseFileName;
  if (set(env.xdg_state_home) && fs::path(env.xdg_state_home).is_absolute())
    return fs::path(env.xdg_state_home) / "gpumeter" / kDatabaseFileName;
  if (set(env.home))
    return fs::path(env.home) / ".local" / "state" / "gpumeter" / kDatabaseFileName;
  return std::unexpected(Error{ErrorCode::invalid_input,
                               "neither XDG_STATE_HOME nor HOME is set: pass --database PATH or "
                               "set GPUMETER_DATABASE to choose where the history is kept"});
}

Owner current_owner() noexcept {
  return Owner{geteuid(), geteuid() == 0};
}

std::expected<fs::path, Error> prepare_database_path(const fs::path& database, const Owner& owner) {
  const fs::path absolute = fs::absolute(database);
  if (!absolute.has_filename()) return std::unexpected(refused(database, "it names a directory"));
  const mode_t directory_mode = owner.system ? 0755 : 0700;
  if (auto created = create_directories(absolute.parent_path(), directory_mode); !created)
    return std::unexpected(std::move(created.error()));
  std::error_code error;
  const fs::path directory = fs::canonical(absolute.parent_path(), error);
  if (error) {
    return std::unexpected(Error{
        ErrorCode::io,
        fmt::format("cannot resolve {}: {}", absolute.parent_path().string(), error.message())});
  }
  if (auto checked = check_ancestors(directory, owner); !checked)
    return std::unexpected(std::move(checked.error()));
  fs::path file = directory / absolute.filename();
  if (auto created = create_file(file, owner.system ? 0640 : 0600); !created)
    return std::unexpected(std::move(created.error()));
  if (auto checked = check_files(file, owner); !checked)
    return std::unexpected(std::move(checked.error()));
  return file;
}

std::expected<fs::path, Error> check_database_for_reading(const fs::path& database) {
  std::error_code error;
  const fs::path absolute = fs::absolute(database);
  const fs::path directory = fs::canonical(absolute.parent_path(), error);
  if (error) {
    return std::unexpected(Error{
        ErrorCode::io, fmt::format("cannot read {}: {}", database.string(), error.message())});
  }
  fs::path file = directory / absolute.filename();
  struct stat info{};
  if (lstat(file.c_str(), &info) != 0) return std::unexpected(io_error(file, "read"));
  if (S_ISLNK(info.st_mode)) return std::unexpected(refused(file, "it is a symbolic link"));
  if (!S_ISREG(info.st_mode)) return std::unexpected(refused(file, "it is not a regular file"));
  return file;
}

}  // namespace gpumeter::store
