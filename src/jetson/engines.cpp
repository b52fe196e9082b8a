// SPDX-License-Identifier: MIT
#include "jetson/engines.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <string_view>

namespace gpumeter::jetson {
namespace {

constexpr std::string_view kClocks = "/sys/kernel/debug/clk";
// Engines by their clocks' exact names (a trailing instance digit allowed: nvdec1, nvjpg1).
constexpr std::array<std::string_view, 10> kEngines{"ape",   "cvnas", "msenc", "nvdec", "nvenc",
                                                    "nvjpg", "ofa",   "se",    "vic",   "vic03"};
// Deep-learning and vision accelerators: "dla0_core", "pva1_vps0", ... (an instance digit,
// then the clock's part).
constexpr std::array<std::string_view, 2> kAccelerators{"dla", "pva"};

bool is_engine(std::string_view name) {
  if (name.find('.') != std::string_view::npos) return false;  // "nvdec.buf": a helper clock
  std::string_view base = name;
  if (!base.empty() && std::isdigit(static_cast<unsigned char>(base.back())) != 0 &&
      std::ranges::find(kEngines, base) == kEngines.end()) {
    base.remove_suffix(1);
  }
  if (std::ranges::find(kEngines, base) != kEngines.end()) return true;
  return std::ranges::any_of(kAccelerators, [&](std::string_view prefix) {
    return name.size() > prefix.size() && name.starts_with(prefix) &&
           std::isdigit(static_cast<unsigned char>(name[prefix.size()])) != 0;
  });
}

}  // namespace

Maybe<std::vector<EngineClock>> read_engines(const Sysfs& sysfs) {
  std::error_code error;
  std::filesystem::directory_iterator probe(sysfs.at(kClocks), error);
  if (error) {
    const int code = error.value();
    return std::unexpected(code == EACCES || code == EPERM ? Unavailable::no_permission
                                                           : Unavailable::not_supported);
  }
  std::vector<EngineClock> engines;
  for (const std::string& name : sysfs.list(kClocks)) {
    if (!is_engine(name)) continue;
    const std::string dir = join(kClocks, name);
    EngineClock engine{name, std::unexpected(Unavailable::error),
                       std::unexpected(Unavailable::error)};
    if (const auto count = sysfs.integer(join(dir, "clk_enable_count"))) {
      engine.on = *count > 0;
    } else {
      engine.on = std::unexpected(count.error());
    }
    if (const auto hz = sysfs.integer(join(dir, "clk_rate"))) {
      engine.clock_mhz = static_cast<double>(*hz) / 1e6;
    } else {
      engine.clock_mhz = std::unexpected(hz.error());
    }
    engines.push_back(std::move(engine));
  }
  return engines;
}

}  // namespace gpumeter::jetson
