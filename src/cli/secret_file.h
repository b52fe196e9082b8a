// A bearer token kept in a file (`token-file` of an agent in the master's config): the first
// line, without surrounding white space.
#pragma once

#include <expected>
#include <filesystem>
#include <string>

#include "core/error.h"

namespace gpumeter::cli {

// Errors: io "FILE: cannot read: ..."; invalid_input "FILE: expected a token on the first
// line" for an empty first line or a token with spaces or control characters (it must fit
// in an HTTP header).
std::expected<std::string, Error> read_secret_file(const std::filesystem::path& file);

}  // namespace gpumeter::cli
