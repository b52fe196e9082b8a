// SPDX-License-Identifier: MIT
#include "master/status_check.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

namespace gpumeter::master {
namespace {

using Check = std::expected<void, std::string>;

constexpr std::array<std::string_view, 8> kReadings{
    "utilization_gpu_percent", "utilization_memory_percent", "memory_used_bytes",
    "memory_total_bytes",      "memory_free_bytes",          "temperature_celsius",
    "power_draw_watts",        "power_limit_watts"};

std::unexpected<std::string> wrong(std::string_view where, std::string_view expected) {
  return std::unexpected(fmt::format("{}: expected {}", where, expected));
}

Check expect_member(const Json& object, std::string_view prefix, std::string_view key,
                    bool (*fits)(const Json&), std::string_view expected) {
  const auto found = object.find(key);
  if (found == object.end() || !fits(*found)) {
    return wrong(fmt::format("{}{}", prefix, key), expected);
  }
  return {};
}

bool is_string_or_null(const Json& value) {
  return value.is_string() || value.is_null();
}
bool is_number_or_null(const Json& value) {
  return value.is_number() || value.is_null();
}
bool is_array_or_null(const Json& value) {
  return value.is_array() || value.is_null();
}
bool is_string(const Json& value) {
  return value.is_string();
}
bool is_integer(const Json& value) {
  return value.is_number_integer();
}
bool is_index(const Json& value) {
  return value.is_number_unsigned() ||
         (value.is_number_integer() && value.get<std::int64_t>() >= 0);
}

Check check_gpu(const Json& gpu, std::size_t position) {
  const std::string prefix = fmt::format("gpus[{}].", position);
  if (!gpu.is_object()) return wrong(fmt::format("gpus[{}]", position), "an object");
  for (const auto& checked : {
           expect_member(gpu, prefix, "index", is_index, "a non-negative integer"),
           expect_member(gpu, prefix, "status", is_string, "a string"),
           expect_member(gpu, prefix, "uuid", is_string_or_null, "a string or null"),
           expect_member(gpu, prefix, "name", is_string_or_null, "a string or null"),
           expect_member(gpu, prefix, "users", is_array_or_null, "an array or null"),
           expect_member(gpu, prefix, "processes", is_array_or_null, "an array or null"),
       }) {
    if (!checked) return checked;
  }
  for (const std::string_view key : kReadings) {
    if (auto checked = expect_member(gpu, prefix, key, is_number_or_null, "a number or null");
        !checked) {
      return checked;
    }
  }
  return {};
}

}  // namespace

Check check_status_document(const Json& document) {
  if (!document.is_object()) return wrong("the document", "a JSON object");
  const auto version = document.find("schema_version");
  if (version == document.end() || !version->is_number_integer() || *version != 1) {
    return wrong("schema_version", "1");
  }
  if (auto checked = expect_member(document, "", "host", is_string, "a string"); !checked) {
    return checked;
  }
  if (auto checked = expect_member(document, "", "time_us", is_integer, "an integer"); !checked) {
    return checked;
  }
  if (!document.contains("gpus") || !document["gpus"].is_array()) return wrong("gpus", "an array");
  std::size_t position = 0;
  for (const Json& gpu : document["gpus"]) {
    if (auto checked = check_gpu(gpu, position++); !checked) return checked;
  }
  return {};
}

}  // namespace gpumeter::master
