#include "net/query_params.h"

#include <fmt/format.h>

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

Error bad_param(std::string_view name, std::string_view what) {
  return Error{ErrorCode::invalid_input, fmt::format("{}: {}", name, what)};
}

}  // namespace gpumeter::net
