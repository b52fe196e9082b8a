// SPDX-License-Identifier: MIT
// The top level of a scenario file: driver, devices, processes, faults.
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "core/bounded_file.h"
#include "sim/parse_parts.h"
#include "sim/symbols.h"

namespace gpumeter::sim {
namespace parse {
namespace {

LostFault lost(Reader& reader, const Cursor& at, std::size_t device_count) {
  const ObjectCursor object = reader.object(at, {"device", "at_s"});
  return LostFault{
      device_index(reader, reader.required(object, "device", "a device index"), device_count),
      reader.number(reader.required(object, "at_s", "the time the GPU falls off the bus"))};
}

XidFault xid(Reader& reader, const Cursor& at, std::size_t device_count) {
  const ObjectCursor object = reader.object(at, {"device", "at_s", "code"});
  XidFault fault;
  fault.device =
      device_index(reader, reader.required(object, "device", "a device index"), device_count);
  fault.at_s = reader.number(reader.required(object, "at_s", "the time the driver reports it"));
  const Cursor code = reader.required(object, "code", "the XID code, a whole number 1 to 1000");
  fault.code = reader.whole(code, 1000);
  if (!reader.failed() && fault.code == 0) reader.fail(code, "an XID code is 1 or more");
  return fault;
}

std::vector<std::string> function_names(Reader& reader, const Cursor& at) {
  std::vector<std::string> names;
  for (const Cursor& item : reader.elements(at)) {
    std::string name = reader.string(item);
    if (!reader.failed() && !is_simulated_symbol(name)) {
      reader.fail(item, fmt::format("\"{}\" is not an NVML function the simulator exports", name));
    }
    names.push_back(std::move(name));
  }
  return names;
}

FlakyFault flaky(Reader& reader, const Cursor& at, std::size_t device_count) {
  const ObjectCursor object = reader.object(at, {"functions", "every", "code", "device"});
  FlakyFault f;
  f.functions = function_names(
      reader, reader.required(object, "functions", "an array of NVML function names"));
  const Cursor every = reader.required(object, "every", "N: every N-th call fails");
  f.every = static_cast<unsigned>(reader.whole(every, 1'000'000));
  if (!reader.failed() && f.every == 0) reader.fail(every, "expected a number above 0");
  if (auto code = reader.member(object, "code")) f.code = return_code(reader, *code);
  if (auto device = reader.member(object, "device"))
    f.device = device_index(reader, *device, device_count);
  return f;
}

}  // namespace

// "typical" (sim/call_costs.h) or {"nvmlFunction": ms, ..., "*": ms for every other call}.
CallCosts call_costs(Reader& reader, const Cursor& at) {
  if (at.value->is_string()) {
    if (reader.string(at) != "typical")
      reader.fail(at, "expected \"typical\" or an object of NVML function names and ms");
    return typical_call_costs();
  }
  CallCosts costs;
  if (!at.value->is_object()) {
    reader.fail(at, "expected \"typical\" or an object of NVML function names and ms");
    return costs;
  }
  for (const auto& [name, value] : at.value->items()) {
    const Cursor item{&value, at.pointer + "/" + name};
    if (name != "*" && !is_simulated_symbol(name)) {
      reader.fail(item, fmt::format("\"{}\" is not an NVML function the simulator exports", name));
      return costs;
    }
    costs[name] = reader.number_in(item, 0, 10'000);
  }
  return costs;
}

DriverSpec driver(Reader& reader, const Cursor& at) {
  const ObjectCursor object = reader.object(
      at, {"driver_version", "nvml_version", "cuda_driver_version", "privileged", "call_costs"});
  DriverSpec d;
  if (auto costs = reader.member(object, "call_costs")) d.call_costs = call_costs(reader, *costs);
  d.driver_version = reader.string_or(object, "driver_version", d.driver_version);
  // NVML's version reads "<API major>.<driver version>".
  const std::string nvml_default = fmt::format("12.{}", d.driver_version);
  d.nvml_version = reader.string_or(object, "nvml_version", nvml_default);
  d.cuda_driver_version =
      static_cast<int>(reader.whole_or(object, "cuda_driver_version", 12080, 99'990));
  if (auto privileged = reader.member(object, "privileged"))
    d.privileged = reader.boolean(*privileged);
  return d;
}

Faults faults(Reader& reader, const Cursor& at, std::size_t device_count) {
  const ObjectCursor object =
      reader.object(at, {"init", "init_fails_for_s", "lost", "xid", "flaky"});
  Faults f;
  if (auto init = reader.member(object, "init")) f.init_code = return_code(reader, *init);
  if (auto wait = reader.member(object, "init_fails_for_s")) {
    f.init_fails_for_s = reader.number_in(*wait, 0, 86'400);
  }
  if (auto list = reader.member(object, "lost")) {
    for (const Cursor& item : reader.elements(*list))
      f.lost.push_back(lost(reader, item, device_count));
  }
  if (auto list = reader.member(object, "xid")) {
    for (const Cursor& item : reader.elements(*list))
      f.xid.push_back(xid(reader, item, device_count));
    std::ranges::stable_sort(f.xid, {}, &XidFault::at_s);
  }
  if (auto list = reader.member(object, "flaky")) {
    for (const Cursor& item : reader.elements(*list))
      f.flaky.push_back(flaky(reader, item, device_count));
  }
  return f;
}

}  // namespace parse

namespace {

Scenario read(Reader& reader, std::string_view file) {
  const ObjectCursor top =
      reader.object(reader.root(), {"description", "jetson", "driver", "device_defaults", "devices",
                                    "processes", "faults", "vgpu"});
  Scenario s;
  s.file = file;
  s.description = reader.string_or(top, "description", "");
  if (auto d = reader.member(top, "driver")) s.driver = parse::driver(reader, *d);
  static const nlohmann::json kNoDefaults;
  Cursor defaults{&kNoDefaults, ""};
  if (auto d = reader.member(top, "device_defaults")) {
    defaults = *d;
    reader.object(defaults, parse::device_keys());
  }
  const std::vector<Cursor> devices =
      reader.elements(reader.required(top, "devices", "an array (it may be empty)"));
  for (std::size_t i = 0; i < devices.size(); ++i)
    s.devices.push_back(parse::device(reader, devices[i], defaults, i));
  if (auto p = reader.member(top, "processes")) {
    for (const Cursor& item : reader.elements(*p)) {
      s.processes.push_back(parse::process(reader, item, s.devices.size()));
      parse::mig_placement(reader, item, s.devices, s.processes.back());
    }
  }
  if (auto f = reader.member(top, "faults")) s.faults = parse::faults(reader, *f, s.devices.size());
  if (auto v = reader.member(top, "vgpu")) s.vgpu = parse::vgpu(reader, *v, s.devices.size());
  if (auto j = reader.member(top, "jetson")) {
    s.jetson = parse::jetson(reader, *j);
    parse::check_jetson(reader, *j, s);
  }
  return s;
}

}  // namespace

std::expected<Scenario, Error> parse_scenario(std::string_view text, std::string_view file) {
  auto document = parse_located_json(text, file);
  if (!document) return std::unexpected(document.error());
  Reader reader(*document, std::string(file));
  Scenario scenario = read(reader, file);
  if (const std::optional<Error>& error = reader.error()) return std::unexpected(*error);
  return scenario;
}

std::expected<Scenario, Error> load_scenario(const std::filesystem::path& path) {
  const auto text = read_file_at_most(path, kMaxScenarioBytes);
  if (!text && text.error().kind == BoundedReadError::Kind::too_large) {
    return std::unexpected(
        Error{ErrorCode::invalid_input,
              fmt::format("{}: larger than 16 MiB (expected a scenario file of at most 16 MiB)",
                          path.string())});
  }
  if (!text) {
    return std::unexpected(
        Error{ErrorCode::io, fmt::format("{}: cannot read the scenario file", path.string())});
  }
  return parse_scenario(*text, path.string());
}

}  // namespace gpumeter::sim
