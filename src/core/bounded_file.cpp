// SPDX-License-Identifier: MIT
#include "core/bounded_file.h"

#include <array>
#include <cerrno>
#include <fstream>

namespace gpumeter {

std::expected<std::string, BoundedReadError> read_file_at_most(const std::filesystem::path& path,
                                                               std::size_t max_bytes) {
  std::error_code ignored;
  // A directory opens as a stream on Linux and reads as an error only later.
  if (std::filesystem::is_directory(path, ignored)) {
    return std::unexpected(BoundedReadError{BoundedReadError::Kind::cannot_read, EISDIR});
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::unexpected(BoundedReadError{BoundedReadError::Kind::cannot_read, errno});
  std::string text;
  std::array<char, std::size_t{64} * 1024>
      chunk;  // NOLINT(cppcoreguidelines-pro-type-member-init): filled by read
  while (in && text.size() <= max_bytes) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad())
    return std::unexpected(BoundedReadError{BoundedReadError::Kind::cannot_read, errno});
  if (text.size() > max_bytes) {
    return std::unexpected(BoundedReadError{BoundedReadError::Kind::too_large, 0});
  }
  return text;
}

}  // namespace gpumeter
