// SPDX-License-Identifier: MIT
#include "net/query_params.h"

#include <fmt/format.h>

#include <charconv>

#include "net/query_time.h"

namespace gpumeter::net {

std::optional<std::string> query_param(const httplib::Request& request, const std::string& name) {
  if (!request.has_param(name)) return std::nullopt;
  std::string value = request.get_param_value(name);
  if (value.empty()) return std::nullopt;
  return value;
}

std::expected<TimeUs, Error> time_param(const httplib::Request& request, const std::string& name,
                                        TimeUs fallback, TimeUs now_us) {
  const auto text = query_param(request, name);
  if (!text) return fallback;
  const auto time = parse_query_time(*text, now_us);
  if (!time) {
    return std::unexpected(bad_param(
        name, fmt::format("\"{}\" is not {}, from {}", *text, kQueryTimeForms, kQueryTimeRange)));
  }
  return *time;
}

std::expected<std::size_t, Error> page_size_param(const httplib::Request& request,
                                                  const std::string& name, std::size_t most) {
  const auto text = query_param(request, name);
  if (!text) return most;
  std::size_t size = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), size);
  if (error != std::errc{} || end != text->data() + text->size() || size < 1 || size > most) {
    return std::unexpected(
        bad_param(name, fmt::format("\"{}\" is not a whole number from 1 to {}", *text, most)));
  }
  return size;
}

std::expected<bool, Error> flag_param(const httplib::Request& request, const std::string& name) {
  const auto text = query_param(request, name);
  if (!text) return false;
  if (*text == "1" || *text == "true") return true;
  if (*text == "0" || *text == "false") return false;
  return std::unexpected(bad_param(name, fmt::format("\"{}\" is not 1, true, 0 or false", *text)));
}

Error bad_param(std::string_view name, std::string_view what) {
  return Error{ErrorCode::invalid_input, fmt::format("{}: {}", name, what)};
}

}  // namespace gpumeter::net
