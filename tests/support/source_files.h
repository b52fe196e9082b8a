// SPDX-License-Identifier: MIT
// The project's own files (schemas, examples, scenarios) as tests read them: ctest sets
// GPUMETER_SOURCE_DIR to the source tree; run by hand, a test looks in the working directory.
// With the small JSON helpers the schema tests share.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

namespace gpumeter::testing {

inline std::filesystem::path source_path(const std::string& relative) {
  const char* root = std::getenv("GPUMETER_SOURCE_DIR");
  return std::filesystem::path(root != nullptr ? root : ".") / relative;
}

// The whole file, or "" when it cannot be read (the test's own check then says which).
inline std::string read_source_file(const std::string& relative) {
  std::ifstream in(source_path(relative), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A JSON file of the source tree, parsed as `Json` (nlohmann's json or ordered_json); throws,
// failing the test, when it is missing or invalid.
template <typename Json>
Json read_source_json(const std::string& relative) {
  return Json::parse(read_source_file(relative));
}

// An object's keys, and an array of strings, as sets: schema tests compare them.
template <typename Json>
std::set<std::string> keys_of(const Json& object) {
  std::set<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.insert(key);
  return keys;
}

template <typename Json>
std::set<std::string> strings_of(const Json& array) {
  std::set<std::string> out;
  for (const Json& item : array) out.insert(item.template get<std::string>());
  return out;
}

}  // namespace gpumeter::testing
