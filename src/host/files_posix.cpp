// SPDX-License-Identifier: MIT
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <utility>

#include "core/unique_fd.h"
#include "host/files.h"
#include "host/os_error.h"

namespace gpumeter::host {
namespace {

std::expected<void, std::error_code> write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    ssize_t wrote = write(fd, content.data(), content.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) return std::unexpected(last_os_error());
    content.remove_prefix(static_cast<std::size_t>(wrote));
  }
  return {};
}

std::expected<void, std::error_code> write_new_file(const std::filesystem::path& path,
                                                    std::string_view content) {
  UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (fd.get() < 0) return std::unexpected(last_os_error());
  auto written = write_all(fd.get(), content);
  if (close(fd.release()) != 0 && written) return std::unexpected(last_os_error());
  return written;
}

}  // namespace

std::expected<std::string, std::error_code> read_file(const std::filesystem::path& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return std::unexpected(last_os_error());
  std::string text;
  std::array<char, 4096> chunk{};
  while (true) {
    ssize_t got = read(fd.get(), chunk.data(), chunk.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::unexpected(last_os_error());
    if (got == 0) return text;
    text.append(chunk.data(), static_cast<std::size_t>(got));
  }
}

std::expected<void, std::error_code> write_file_atomically(const std::filesystem::path& dir,
                                                           std::string_view name,
                                                           std::string_view content) {
  const auto temporary = dir / (".tmp-" + std::string(name) + "-" + std::to_string(getpid()));
  auto written = write_new_file(temporary, content);
  if (written && rename(temporary.c_str(), (dir / name).c_str()) != 0) {
    written = std::unexpected(last_os_error());
  }
  if (!written) unlink(temporary.c_str());
  return written;
}

std::expected<DirectoryLock, std::error_code> DirectoryLock::acquire(
    const std::filesystem::path& dir) {
  UniqueFd fd(open((dir / ".lock").c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (fd.get() < 0) return std::unexpected(last_os_error());
  while (flock(fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return std::unexpected(last_os_error());
  }
  return DirectoryLock(fd.release());
}

DirectoryLock::DirectoryLock(DirectoryLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace gpumeter::host
