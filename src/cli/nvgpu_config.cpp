// SPDX-License-Identifier: MIT
#include "cli/nvgpu_config.h"

#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <string>

namespace gpumeter::cli {
namespace {

// A cursor over the text that skips blanks, newlines and # comments, counting lines.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  void skip_space() {
    while (at_ < text_.size()) {
      const char c = text_[at_];
      if (c == '#') {
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
      } else if (c == '\n') {
        ++line_;
        ++at_;
      } else if (std::isspace(static_cast<unsigned char>(c)) != 0) {
        ++at_;
      } else {
        return;
      }
    }
  }
  bool done() {
    skip_space();
    return at_ >= text_.size();
  }
  char peek() {
    skip_space();
    return at_ < text_.size() ? text_[at_] : '\0';
  }
  bool take(char c) {
    if (peek() != c) return false;
    ++at_;
    return true;
  }
  std::string_view word() {
    skip_space();
    const std::size_t start = at_;
    while (at_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[at_])) != 0 || text_[at_] == '_')) {
      ++at_;
    }
    return text_.substr(start, at_ - start);
  }
  // A quoted string without escapes (URLs and 'self' need none); nullopt when unterminated.
  std::optional<std::string> quoted() {
    const char quote = text_[at_++];
    const std::size_t start = at_;
    while (at_ < text_.size() && text_[at_] != quote && text_[at_] != '\n') ++at_;
    if (at_ >= text_.size() || text_[at_] != quote) return std::nullopt;
    return std::string(text_.substr(start, at_++ - start));
  }
  std::size_t line() const { return line_; }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
  std::size_t line_ = 1;
};

std::unexpected<Error> problem(std::string_view file, std::size_t line, std::string_view what) {
  return std::unexpected(
      Error{ErrorCode::invalid_input, fmt::format("{}:{}: {}", file, line, what)});
}

}  // namespace

bool is_nvgpu_config(std::string_view text) {
  Scanner scanner(text);
  return scanner.word() == "AGENTS" && scanner.take('=');
}

std::expected<std::vector<ConfigTable>, Error> nvgpu_config_tables(std::string_view text,
                                                                   std::string_view file) {
  Scanner scanner(text);
  const std::string_view name = scanner.word();
  if (name != "AGENTS" || !scanner.take('=') || !scanner.take('[')) {
    return problem(file, scanner.line(),
                   "expected AGENTS = [ ... ] (an nvgpu cluster config: the agents to poll)");
  }
  std::vector<ConfigTable> tables{ConfigTable{}};  // the top: gpumeter's defaults
  while (!scanner.take(']')) {
    const char quote = scanner.peek();
    if (quote != '\'' && quote != '"') {
      return problem(file, scanner.line(),
                     "expected 'self' or an agent's URL in quotes, or ] to end AGENTS");
    }
    const std::size_t line = scanner.line();
    const std::optional<std::string> agent = scanner.quoted();
    if (!agent) return problem(file, line, "a string without its closing quote");
    tables.push_back(ConfigTable{.name = "agent",
                                 .array_item = true,
                                 .line = line,
                                 .entries = {ConfigEntry{"url", *agent, line}}});
    if (!scanner.take(',') && scanner.peek() != ']') {
      return problem(file, scanner.line(), "expected , or ] after an agent");
    }
  }
  if (!scanner.done()) {
    return problem(file, scanner.line(),
                   "only AGENTS is read from an nvgpu config (its other settings are its web "
                   "server's; gpumeter master takes them as options)");
  }
  return tables;
}

}  // namespace gpumeter::cli
