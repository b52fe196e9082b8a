// SPDX-License-Identifier: MIT
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "host/cgroup_fs.h"
#include "host/files.h"
#include "host/os_error.h"

namespace gpumeter::host {

std::expected<void, std::error_code> SystemCgroupFs::make_directory(
    const std::filesystem::path& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0) return std::unexpected(last_os_error());
  return {};
}

std::expected<void, std::error_code> SystemCgroupFs::remove_directory(
    const std::filesystem::path& dir) {
  if (::rmdir(dir.c_str()) != 0) return std::unexpected(last_os_error());
  return {};
}

// Never O_CREAT: a missing interface file means a missing controller, not a file to make.
std::expected<void, std::error_code> SystemCgroupFs::write(const std::filesystem::path& file,
                                                           std::string_view text) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return std::unexpected(last_os_error());
  ssize_t wrote = -1;
  do {
    wrote = ::write(fd, text.data(), text.size());
  } while (wrote < 0 && errno == EINTR);
  const int write_errno = errno;
  ::close(fd);
  if (wrote < 0) return std::unexpected(std::error_code(write_errno, std::generic_category()));
  if (static_cast<std::size_t>(wrote) != text.size()) {
    return std::unexpected(std::make_error_code(std::errc::io_error));
  }
  return {};
}

std::expected<std::string, std::error_code> SystemCgroupFs::read(
    const std::filesystem::path& file) {
  return read_file(file);
}

}  // namespace gpumeter::host
