// SPDX-License-Identifier: MIT
// Reading a whole file of outside input with a cap on its size: config, scenario and quota
// files are read before anything checks them, so a huge or endless file (a FIFO, /dev/zero)
// must cost no more than the cap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <string>

namespace gpumeter {

struct BoundedReadError {
  enum class Kind : std::uint8_t { cannot_read, too_large };
  Kind kind = Kind::cannot_read;
  int errno_value = 0;  // for cannot_read; 0 when the stream gave none
};

// The file's bytes when it holds at most max_bytes. Reads in chunks up to one byte past the
// cap, so that a small file costs no buffer of the cap's size.
std::expected<std::string, BoundedReadError> read_file_at_most(const std::filesystem::path& path,
                                                               std::size_t max_bytes);

}  // namespace gpumeter
