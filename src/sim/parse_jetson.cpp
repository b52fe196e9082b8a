// SPDX-License-Identifier: MIT
// "jetson": the scenario is a Jetson board (docs/scenarios.md, "jetson"); its one device is
// the board's integrated GPU.
#include <fmt/format.h>

#include <array>

#include "sim/parse_parts.h"

namespace gpumeter::sim::parse {
namespace {

struct Layout {
  std::string_view name;
  JetsonLayout layout;
  std::string_view release;  // the layout's L4T release, by default
};

constexpr std::array kLayouts{
    Layout{"orin-nano", JetsonLayout::orin_nano, "R36 (release), REVISION: 4.7"},
    Layout{"nano", JetsonLayout::nano, "R32 (release), REVISION: 7.1"},
};

}  // namespace

JetsonSpec jetson(Reader& reader, const Cursor& at) {
  const ObjectCursor object = reader.object(at, {"board", "serial", "release"});
  JetsonSpec spec{.line = reader.line(at)};
  const Cursor board = reader.required(object, "board", "\"orin-nano\" or \"nano\"");
  const std::string name = reader.string(board);
  const auto* found = std::ranges::find(kLayouts, name, &Layout::name);
  if (found == kLayouts.end()) {
    if (!reader.failed())
      reader.fail(board, fmt::format("expected \"orin-nano\" or \"nano\", found \"{}\"", name));
    return spec;
  }
  spec.layout = found->layout;
  spec.serial = reader.string_or(object, "serial", "1424023012345");
  spec.release = reader.string_or(object, "release", std::string(found->release));
  return spec;
}

void check_jetson(Reader& reader, const Cursor& at, const Scenario& scenario) {
  if (reader.failed()) return;
  if (scenario.devices.size() != 1) {
    reader.fail(at, fmt::format("a Jetson board has one GPU: expected one device, found {}",
                                scenario.devices.size()));
  } else if (scenario.devices.front().mig || !scenario.vgpu.hosts.empty()) {
    reader.fail(at, "a Jetson board's GPU has neither MIG nor vGPU");
  }
}

}  // namespace gpumeter::sim::parse
