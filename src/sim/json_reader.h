// SPDX-License-Identifier: MIT
// Typed reading of a LocatedJson with "FILE:LINE: what was expected" errors.
//
// The reader keeps the first error and answers later questions with harmless defaults, so
// the scenario parser reads field after field without checking each one; the caller asks
// error() once at the end. Unknown keys are errors (they are usually typos), except
// "comment", which any object may carry.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "sim/json_located.h"

namespace gpumeter::sim {

// A value in the document and its JSON pointer.
struct Cursor {
  const nlohmann::json* value = nullptr;
  std::string pointer;
};

// An object whose missing keys fall back to a second object (device defaults).
struct ObjectCursor {
  Cursor self;
  std::optional<Cursor> fallback;
};

class Reader {
 public:
  Reader(const LocatedJson& document, std::string file);

  Cursor root() const { return Cursor{&document_.value, ""}; }
  const std::optional<Error>& error() const { return error_; }
  bool failed() const { return error_.has_value(); }

  int line(const Cursor& at) const { return document_.line_of(at.pointer); }

  // Records "FILE:LINE: PATH: message" unless an error is already recorded.
  void fail(const Cursor& at, std::string_view message);

  // Checks that `at` is an object with no keys outside `allowed`.
  using Keys = std::vector<std::string_view>;
  ObjectCursor object(const Cursor& at, const Keys& allowed);
  ObjectCursor object(const Cursor& at, const Cursor& fallback, const Keys& allowed);
  std::optional<Cursor> member(const ObjectCursor& object, std::string_view key) const;
  // A member that must exist; records an error naming what was expected if it does not.
  Cursor required(const ObjectCursor& object, std::string_view key, std::string_view expected);
  std::vector<Cursor> elements(const Cursor& array);

  // Scalars. Each records an error (and returns a default) when the value has another kind.
  double number(const Cursor& at);
  double number_in(const Cursor& at, double low, double high);
  std::uint64_t whole(const Cursor& at, std::uint64_t max = UINT64_MAX);
  std::string string(const Cursor& at);
  bool boolean(const Cursor& at);

  // Optional members with a default.
  double number_or(const ObjectCursor& object, std::string_view key, double fallback);
  std::uint64_t whole_or(const ObjectCursor& object, std::string_view key, std::uint64_t fallback,
                         std::uint64_t max = UINT64_MAX);
  std::string string_or(const ObjectCursor& object, std::string_view key, std::string fallback);
  bool boolean_or(const ObjectCursor& object, std::string_view key, bool fallback);

 private:
  bool expect(const Cursor& at, bool ok, std::string_view expected);
  void check_keys(const Cursor& at, const Keys& allowed);

  const LocatedJson& document_;
  std::string file_;
  std::optional<Error> error_;
  nlohmann::json null_;
};

// "a string", "a number", ... for messages.
std::string_view kind_of(const nlohmann::json& value) noexcept;

}  // namespace gpumeter::sim
