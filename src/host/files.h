// SPDX-License-Identifier: MIT
// Whole-file reads and writes, and an exclusive lock on a directory: the POSIX file
// operations the host readers and the GPU reservations need.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace gpumeter::host {

// The file's bytes, however its size is reported (procfs files report 0), or the errno of the
// failed open or read as a generic error_code.
std::expected<std::string, std::error_code> read_file(const std::filesystem::path& path);

// Replaces `dir`/`name` with `content` (mode 0600) so that readers see the old or the new
// file, never a part: writes a temporary file in `dir` whose name starts with ".tmp-", then
// renames it. Not fsync'd: callers keep only short-lived state in a runtime directory.
std::expected<void, std::error_code> write_file_atomically(const std::filesystem::path& dir,
                                                           std::string_view name,
                                                           std::string_view content);

// An exclusive flock on `dir`/.lock (created 0600, never removed, so that every process locks
// the same inode), held until destruction. Blocks until it is granted.
class DirectoryLock {
 public:
  static std::expected<DirectoryLock, std::error_code> acquire(const std::filesystem::path& dir);
  DirectoryLock(DirectoryLock&& other) noexcept;
  DirectoryLock& operator=(DirectoryLock&&) = delete;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  ~DirectoryLock();

 private:
  explicit DirectoryLock(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace gpumeter::host
