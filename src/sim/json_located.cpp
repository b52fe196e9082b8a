// SPDX-License-Identifier: MIT
#include "sim/json_located.h"

#include <fmt/format.h>

#include <cstddef>
#include <iterator>
#include <optional>
#include <vector>

namespace gpumeter::sim {
namespace {

using nlohmann::json;

// RFC 6901: "~" is written "~0" and "/" is written "~1" inside a pointer's token.
std::string escape_token(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string unescape_token(std::string_view token) {
  std::string out;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size()) {
      out += token[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

// Lines of the characters the parser has consumed so far. nlohmann's lexer reads one
// character at a time through the iterator, so the tracker always knows the line of the
// last character read, and of the one before it (a number is only known to have ended
// after the lexer read the character that follows it).
struct LineTracker {
  int line = 1;         // line of the next character
  int last_line = 1;    // line of the last character read
  int before_last = 1;  // line of the character before that

  void consume(char c) noexcept {
    before_last = last_line;
    last_line = line;
    if (c == '\n') ++line;
  }
};

class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  using Base = std::string_view::const_iterator;

  CountingIterator(Base position, LineTracker* tracker) : position_(position), tracker_(tracker) {}
  reference operator*() const { return *position_; }
  CountingIterator& operator++() {
    tracker_->consume(*position_);
    ++position_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const CountingIterator& other) const { return position_ == other.position_; }

 private:
  Base position_;
  LineTracker* tracker_;
};

int line_at(std::string_view text, std::size_t position) {
  const std::size_t end = std::min(position, text.size());
  int line = 1;
  // The parser reports the position after the offending character.
  for (std::size_t i = 0; i + 1 < end; ++i) {
    if (text[i] == '\n') ++line;
  }
  return line;
}

// nlohmann's message reads "[json.exception.parse_error.101] parse error at line 3,
// column 5: syntax error while parsing object - unexpected '}'; expected string literal";
// keep only what follows the position, since the file and line are printed separately.
std::string describe_syntax_error(const std::string& what) {
  const std::size_t colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

// Builds the document like nlohmann's own DOM builder, and records each value's line
// under its JSON pointer.
class LocatingSax {
 public:
  explicit LocatingSax(const LineTracker& tracker) : tracker_(tracker) {}

  bool null() { return add(json(nullptr), tracker_.last_line); }
  bool boolean(bool value) { return add(json(value), tracker_.last_line); }
  bool number_integer(json::number_integer_t value) {
    return add(json(value), tracker_.before_last);
  }
  bool number_unsigned(json::number_unsigned_t value) {
    return add(json(value), tracker_.before_last);
  }
  bool number_float(json::number_float_t value, const json::string_t& /*text*/) {
    return add(json(value), tracker_.before_last);
  }
  bool string(json::string_t& value) { return add(json(std::move(value)), tracker_.last_line); }
  bool binary(json::binary_t& value) {
    return add(json::binary(std::move(value)), tracker_.last_line);
  }
  bool start_object(std::size_t /*size*/) { return open(json::object()); }
  bool start_array(std::size_t /*size*/) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t& name) {
    if (stack_.back().value->contains(name)) {
      error_position_line_ = tracker_.last_line;
      error_text_ = fmt::format("duplicate key \"{}\"", name);
      return false;
    }
    pending_key_ = name;
    return true;
  }
  bool parse_error(std::size_t position, const std::string& /*token*/,
                   const nlohmann::detail::exception& error) {
    error_position_ = position;
    error_text_ = describe_syntax_error(error.what());
    return false;
  }

  LocatedJson take() { return LocatedJson{std::move(root_), std::move(lines_)}; }
  // The line of the error, if parsing stopped at one.
  std::optional<int> error_line(std::string_view text) const {
    if (error_position_line_) return error_position_line_;
    if (error_position_) return line_at(text, *error_position_);
    return std::nullopt;
  }
  const std::string& error_text() const { return error_text_; }

 private:
  struct Open {
    json* value;
    std::string pointer;
  };

  // Where the next value goes: the pointer it gets, and the slot it is stored in.
  json* place(json value, std::string& pointer) {
    if (stack_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Open& parent = stack_.back();
    if (parent.value->is_object()) {
      pointer = parent.pointer + "/" + escape_token(pending_key_);
      json& slot = (*parent.value)[pending_key_];
      slot = std::move(value);
      return &slot;
    }
    pointer = fmt::format("{}/{}", parent.pointer, parent.value->size());
    parent.value->push_back(std::move(value));
    return &parent.value->back();
  }

  bool add(json value, int line) {
    std::string pointer;
    place(std::move(value), pointer);
    lines_.emplace(pointer, line);
    return true;
  }

  bool open(json value) {
    std::string pointer;
    json* slot = place(std::move(value), pointer);
    lines_.emplace(pointer, tracker_.last_line);
    stack_.push_back(Open{slot, pointer});
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  const LineTracker& tracker_;
  json root_;
  std::vector<Open> stack_;
  std::string pending_key_;
  std::unordered_map<std::string, int> lines_;
  std::optional<std::size_t> error_position_;
  std::optional<int> error_position_line_;
  std::string error_text_;
};

// The line where the text first opens more than kMaxJsonDepth arrays and objects, if it does.
// Checked before parsing: each value's pointer is as long as its depth, so a deep text would
// cost memory in the square of its depth.
std::optional<int> line_too_deep(std::string_view text) {
  int depth = 0;
  int line = 1;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return line;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

}  // namespace

int LocatedJson::line_of(std::string_view pointer) const {
  std::string key(pointer);
  while (true) {
    if (auto it = lines.find(key); it != lines.end()) return it->second;
    if (key.empty()) return 1;
    key.erase(key.rfind('/'));
  }
}

std::expected<LocatedJson, Error> parse_located_json(std::string_view text, std::string_view file) {
  if (const auto too_deep = line_too_deep(text)) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              fmt::format("{}:{}: nested deeper than {} levels (expected at most {})", file,
                          *too_deep, kMaxJsonDepth, kMaxJsonDepth)});
  }
  LineTracker tracker;
  LocatingSax sax(tracker);
  const CountingIterator first(text.begin(), &tracker);
  const CountingIterator last(text.end(), &tracker);
  json::sax_parse(first, last, &sax);
  if (const std::optional<int> line = sax.error_line(text)) {
    return std::unexpected(
        Error{ErrorCode::invalid_input, fmt::format("{}:{}: {}", file, *line, sax.error_text())});
  }
  return sax.take();
}

std::string readable_path(std::string_view pointer) {
  std::string out;
  std::size_t start = 1;
  while (start <= pointer.size()) {
    std::size_t end = pointer.find('/', start);
    if (end == std::string_view::npos) end = pointer.size();
    const std::string part = unescape_token(pointer.substr(start, end - start));
    const bool index = !part.empty() && part.find_first_not_of("0123456789") == std::string::npos;
    out += index ? fmt::format("[{}]", part) : (out.empty() ? part : "." + part);
    start = end + 1;
  }
  return out.empty() ? "(top level)" : out;
}

}  // namespace gpumeter::sim
