// SPDX-License-Identifier: MIT
// The bearer token of `--token-file FILE`: a secret kept in a file that only its owner (and
// group) may read, so that it appears in no command line and no config file.
#pragma once

#include <expected>
#include <filesystem>
#include <string>

#include "core/error.h"

namespace gpumeter::net {

// The token in `file`: its whole content less one trailing newline ("\n" or "\r\n"). A token
// is visible ASCII (0x21 to 0x7E), what an HTTP header carries unchanged.
// Errors: io when the file cannot be read; invalid_input when every user may read it (mode
// o+r: anyone on the machine could use the token), when it is not a regular file, is empty,
// is larger than 4 KiB or holds other characters. Each names the file.
std::expected<std::string, Error> read_token_file(const std::filesystem::path& file);

}  // namespace gpumeter::net
