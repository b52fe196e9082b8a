// SPDX-License-Identifier: MIT
#include "net/token_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace gpumeter::net {
namespace {

constexpr std::size_t kMaxTokenBytes = 4096;

Error failure(ErrorCode code, const std::filesystem::path& file, std::string_view what) {
  return Error{code, fmt::format("--token-file {}: {}", file.string(), what)};
}

// Reads up to kMaxTokenBytes + 1 bytes, so that a larger file is noticed.
std::expected<std::string, Error> read_all(int fd, const std::filesystem::path& file) {
  std::string text;
  std::array<char, 1024> buffer{};
  while (text.size() <= kMaxTokenBytes) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return std::unexpected(failure(ErrorCode::io, file, std::strerror(errno)));
    if (got == 0) break;
    text.append(buffer.data(), static_cast<std::size_t>(got));
  }
  return text;
}

// Checks the opened file itself (fstat), so that it cannot be swapped after the check.
std::expected<std::string, Error> read_private(int fd, const std::filesystem::path& file) {
  struct stat status{};
  if (::fstat(fd, &status) != 0) {
    return std::unexpected(failure(ErrorCode::io, file, std::strerror(errno)));
  }
  if (!S_ISREG(status.st_mode)) {
    return std::unexpected(failure(ErrorCode::invalid_input, file, "not a regular file"));
  }
  if ((status.st_mode & S_IROTH) != 0) {
    return std::unexpected(
        failure(ErrorCode::invalid_input, file,
                fmt::format("every user may read it (mode {:04o}); restrict it with chmod o-rwx",
                            status.st_mode & 07777)));
  }
  return read_all(fd, file);
}

}  // namespace

std::expected<std::string, Error> read_token_file(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return std::unexpected(failure(ErrorCode::io, file, std::strerror(errno)));
  auto text = read_private(fd, file);
  ::close(fd);
  if (!text) return text;
  std::string& token = *text;
  if (token.size() > kMaxTokenBytes) {
    return std::unexpected(failure(ErrorCode::invalid_input, file, "larger than 4 KiB"));
  }
  if (token.ends_with('\n')) token.pop_back();
  if (token.ends_with('\r')) token.pop_back();
  if (token.empty()) return std::unexpected(failure(ErrorCode::invalid_input, file, "empty"));
  const bool visible = std::ranges::all_of(token, [](char c) { return c > ' ' && c < '\x7f'; });
  if (!visible) {
    return std::unexpected(
        failure(ErrorCode::invalid_input, file,
                "the token holds spaces, line breaks or other characters outside visible ASCII"));
  }
  return std::move(token);
}

}  // namespace gpumeter::net
