#include "cli/secret_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace gpumeter::cli {

std::expected<std::string, Error> read_secret_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || (!std::getline(in, line) && !in.eof())) {
    return std::unexpected(Error{
        ErrorCode::io, fmt::format("{}: cannot read: {}", file.string(), std::strerror(errno))});
  }
  const auto first = line.find_first_not_of(" \t\r");
  const auto last = line.find_last_not_of(" \t\r");
  std::string token = first == std::string::npos ? "" : line.substr(first, last - first + 1);
  const bool printable = std::ranges::all_of(token, [](char c) { return c > ' ' && c != '\x7f'; });
  if (token.empty() || !printable) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              fmt::format("{}: expected a token on the first line (printable, without spaces)",
                          file.string())});
  }
  return token;
}

}  // namespace gpumeter::cli
