// SPDX-License-Identifier: MIT
// The conventions every JSON document of gpumeter keeps (docs/json.md): keys in the order
// they are written, numbers as numbers, units in the key names, times as an ISO 8601 string
// with a `*_time_us` twin, absent values as null.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/model.h"

namespace gpumeter::view {

// Keys keep the order they are written in, so documents read top-down like the docs.
using Json = nlohmann::ordered_json;

// A document as text: indented for a person, or on one line (one document per line, as
// `--watch --json` streams them). Invalid UTF-8 in command lines is replaced, never thrown.
std::string dump_json(const Json& document, bool one_line);

// object[key] = "2024-05-01T12:00:00Z" and object[key + "_time_us"] = time_us.
void put_time(Json& object, const std::string& key, TimeUs time_us);

// The value, or null when absent.
template <class T>
Json nullable(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

// obj[key] = convert(value), or null with the reason recorded in unavailable[key].
template <class T, class Convert>
void put(Json& obj, Json& unavailable, const std::string& key, const Maybe<T>& value,
         Convert convert) {
  if (value) {
    obj[key] = convert(*value);
  } else {
    obj[key] = nullptr;
    unavailable[key] = to_string(value.error());
  }
}

template <class T>
void put(Json& obj, Json& unavailable, const std::string& key, const Maybe<T>& value) {
  put(obj, unavailable, key, value, [](const T& v) { return Json(v); });
}

// The text, or null when empty (an unknown user or command).
Json text_or_null(const std::string& text);

}  // namespace gpumeter::view
