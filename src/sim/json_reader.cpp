// SPDX-License-Identifier: MIT
#include "sim/json_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpumeter::sim {

std::string_view kind_of(const nlohmann::json& value) noexcept {
  switch (value.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "true or false";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float: return "a number";
    default: return "something else";
  }
}

Reader::Reader(const LocatedJson& document, std::string file)
    : document_(document), file_(std::move(file)) {}

void Reader::fail(const Cursor& at, std::string_view message) {
  if (error_) return;
  error_ = Error{ErrorCode::invalid_input,
                 fmt::format("{}:{}: {}: {}", file_, document_.line_of(at.pointer),
                             readable_path(at.pointer), message)};
}

bool Reader::expect(const Cursor& at, bool ok, std::string_view expected) {
  if (!ok) fail(at, fmt::format("expected {}, found {}", expected, kind_of(*at.value)));
  return ok && !failed();
}

void Reader::check_keys(const Cursor& at, const Keys& allowed) {
  for (const auto& [key, value] : at.value->items()) {
    if (key == "comment" || std::ranges::find(allowed, key) != allowed.end()) continue;
    std::string names;
    for (std::string_view name : allowed)
      names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", name);
    fail(Cursor{&value, at.pointer + "/" + key},
         fmt::format("unknown key \"{}\" (expected one of {})", key, names));
    return;
  }
}

ObjectCursor Reader::object(const Cursor& at, const Keys& allowed) {
  if (!expect(at, at.value->is_object(), "an object"))
    return ObjectCursor{Cursor{&null_, at.pointer}, {}};
  check_keys(at, allowed);
  return ObjectCursor{at, std::nullopt};
}

ObjectCursor Reader::object(const Cursor& at, const Cursor& fallback, const Keys& allowed) {
  ObjectCursor result = object(at, allowed);
  if (fallback.value->is_object()) result.fallback = fallback;
  return result;
}

std::optional<Cursor> Reader::member(const ObjectCursor& object, std::string_view key) const {
  for (const Cursor* where : {&object.self, object.fallback ? &*object.fallback : nullptr}) {
    if (where == nullptr || !where->value->is_object()) continue;
    auto it = where->value->find(key);
    if (it != where->value->end()) return Cursor{&*it, where->pointer + "/" + std::string(key)};
  }
  return std::nullopt;
}

Cursor Reader::required(const ObjectCursor& object, std::string_view key,
                        std::string_view expected) {
  if (auto found = member(object, key)) return *found;
  fail(object.self, fmt::format("missing \"{}\" (expected {})", key, expected));
  return Cursor{&null_, object.self.pointer + "/" + std::string(key)};
}

std::vector<Cursor> Reader::elements(const Cursor& array) {
  std::vector<Cursor> out;
  if (!expect(array, array.value->is_array(), "an array")) return out;
  for (std::size_t i = 0; i < array.value->size(); ++i) {
    out.push_back(Cursor{&(*array.value)[i], fmt::format("{}/{}", array.pointer, i)});
  }
  return out;
}

double Reader::number(const Cursor& at) {
  if (!expect(at, at.value->is_number(), "a number")) return 0.0;
  return at.value->get<double>();
}

double Reader::number_in(const Cursor& at, double low, double high) {
  const double value = number(at);
  if (!failed() && (value < low || value > high)) {
    fail(at, fmt::format("expected a number from {} to {}, found {}", low, high, value));
  }
  return std::clamp(value, low, high);
}

namespace {

// 1e9 is as whole as 1000000000; 2^64 and beyond are not representable.
bool is_whole(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return true;
  if (v.is_number_integer()) return v.get<std::int64_t>() >= 0;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return d >= 0 && d < 18446744073709551616.0 && std::floor(d) == d;
}

}  // namespace

std::uint64_t Reader::whole(const Cursor& at, std::uint64_t max) {
  const nlohmann::json& v = *at.value;
  if (!is_whole(v) || v.get<std::uint64_t>() > max) {
    const std::string found = v.is_number() ? v.dump() : std::string(kind_of(v));
    fail(at, fmt::format("expected a whole number from 0 to {}, found {}", max, found));
    return 0;
  }
  return v.get<std::uint64_t>();
}

std::string Reader::string(const Cursor& at) {
  if (!expect(at, at.value->is_string(), "a string")) return {};
  return at.value->get<std::string>();
}

bool Reader::boolean(const Cursor& at) {
  if (!expect(at, at.value->is_boolean(), "true or false")) return false;
  return at.value->get<bool>();
}

double Reader::number_or(const ObjectCursor& object, std::string_view key, double fallback) {
  auto found = member(object, key);
  return found ? number(*found) : fallback;
}

std::uint64_t Reader::whole_or(const ObjectCursor& object, std::string_view key,
                               std::uint64_t fallback, std::uint64_t max) {
  auto found = member(object, key);
  return found ? whole(*found, max) : fallback;
}

std::string Reader::string_or(const ObjectCursor& object, std::string_view key,
                              std::string fallback) {
  auto found = member(object, key);
  return found ? string(*found) : std::move(fallback);
}

bool Reader::boolean_or(const ObjectCursor& object, std::string_view key, bool fallback) {
  auto found = member(object, key);
  return found ? boolean(*found) : fallback;
}

}  // namespace gpumeter::sim
