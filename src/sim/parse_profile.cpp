// SPDX-License-Identifier: MIT
// Utilisation and memory profiles: a number, steps or bursts.
#include <fmt/format.h>

#include "sim/parse_parts.h"
#include "sim/return_codes.h"

namespace gpumeter::sim::parse {
namespace {

std::vector<Step> steps(Reader& reader, const Cursor& at, double low, double high) {
  std::vector<Step> out;
  for (const Cursor& pair : reader.elements(at)) {
    const std::vector<Cursor> parts = reader.elements(pair);
    if (!reader.failed() && parts.size() != 2) {
      reader.fail(pair, "expected a pair [time_s, value]");
      break;
    }
    if (reader.failed()) break;
    const Step step{reader.number(parts[0]), reader.number_in(parts[1], low, high)};
    if (!out.empty() && step.at_s <= out.back().at_s)
      reader.fail(parts[0], "expected step times in increasing order");
    out.push_back(step);
  }
  if (!reader.failed() && out.empty())
    reader.fail(at, "expected at least one [time_s, value] step");
  return out;
}

Profile stepped(Reader& reader, const ObjectCursor& object, double low, double high) {
  std::vector<Step> list = steps(reader, reader.required(object, "steps", "an array"), low, high);
  const std::optional<Cursor> repeat = reader.member(object, "repeat_s");
  const double repeat_s = repeat ? reader.number(*repeat) : 0;
  if (repeat && repeat_s > 0 && !list.empty() &&
      (list.front().at_s != 0 || list.back().at_s >= repeat_s)) {
    reader.fail(*repeat, "expected repeating steps to start at 0 and end before repeat_s");
  }
  return Profile::steps(std::move(list), repeat_s);
}

Profile bursty(Reader& reader, const Cursor& at, double low, double high) {
  const ObjectCursor object = reader.object(at, {"period_s", "duty", "value", "offset_s", "idle"});
  Bursts b;
  const Cursor period = reader.required(object, "period_s", "a number of seconds");
  b.period_s = reader.number(period);
  if (!reader.failed() && b.period_s <= 0) reader.fail(period, "expected a period above 0");
  b.duty = reader.number_in(reader.required(object, "duty", "a fraction from 0 to 1"), 0, 1);
  b.value =
      reader.number_in(reader.required(object, "value", "the value during a burst"), low, high);
  b.offset_s = reader.number_or(object, "offset_s", 0);
  if (auto idle = reader.member(object, "idle")) b.idle = reader.number_in(*idle, low, high);
  return Profile::bursts(b);
}

}  // namespace

Profile profile(Reader& reader, const Cursor& at, double low, double high) {
  if (at.value->is_number()) return Profile::constant(reader.number_in(at, low, high));
  if (!at.value->is_object()) {
    reader.fail(
        at,
        fmt::format(
            "expected a number or an object with \"constant\", \"steps\" or \"bursts\", found {}",
            kind_of(*at.value)));
    return {};
  }
  const ObjectCursor object = reader.object(at, {"constant", "steps", "repeat_s", "bursts"});
  if (auto constant = reader.member(object, "constant"))
    return Profile::constant(reader.number_in(*constant, low, high));
  if (reader.member(object, "steps")) return stepped(reader, object, low, high);
  if (auto b = reader.member(object, "bursts")) return bursty(reader, *b, low, high);
  reader.fail(at, "expected \"constant\", \"steps\" or \"bursts\"");
  return {};
}

std::uint32_t return_code(Reader& reader, const Cursor& at) {
  if (at.value->is_number()) return static_cast<std::uint32_t>(reader.whole(at, UINT32_MAX));
  const std::string name = reader.string(at);
  if (reader.failed()) return 0;
  if (auto code = return_code_by_name(name)) return *code;
  reader.fail(at, fmt::format("unknown return code \"{}\" (expected one of {})", name,
                              return_code_names()));
  return 0;
}

std::size_t device_index(Reader& reader, const Cursor& at, std::size_t device_count) {
  const std::uint64_t index = reader.whole(at);
  if (!reader.failed() && index >= device_count) {
    reader.fail(
        at, fmt::format("expected a device index below {} (the number of devices)", device_count));
  }
  return static_cast<std::size_t>(index);
}

}  // namespace gpumeter::sim::parse
