// SPDX-License-Identifier: MIT
// One entry of "devices" (with "device_defaults" filling what it leaves out).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>

#include "nvml/abi.h"
#include "sim/parse_parts.h"

namespace gpumeter::sim::parse {
namespace {

namespace abi = nvml::abi;

struct Named {
  std::string_view name;
  std::uint32_t value;
};

constexpr std::array kArchitectures{
    Named{"kepler", abi::kArchKepler},
    Named{"maxwell", abi::kArchMaxwell},
    Named{"pascal", abi::kArchPascal},
    Named{"volta", abi::kArchVolta},
    Named{"turing", abi::kArchTuring},
    Named{"ampere", abi::kArchAmpere},
    Named{"ada", abi::kArchAda},
    Named{"hopper", abi::kArchHopper},
    Named{"blackwell", abi::kArchBlackwell},
    Named{"unknown", abi::kArchUnknown},
};

constexpr std::array kComputeModes{
    Named{"default", abi::kComputeModeDefault},
    Named{"exclusive_thread", abi::kComputeModeExclusiveThread},
    Named{"prohibited", abi::kComputeModeProhibited},
    Named{"exclusive_process", abi::kComputeModeExclusiveProcess},
};

template <std::size_t N>
std::uint32_t named(Reader& reader, const Cursor& at, const std::array<Named, N>& table) {
  const std::string text = reader.string(at);
  for (const Named& row : table) {
    if (row.name == text) return row.value;
  }
  std::string names;
  for (const Named& row : table)
    names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", row.name);
  if (!reader.failed())
    reader.fail(at, fmt::format("expected one of {}, found \"{}\"", names, text));
  return table.front().value;
}

// A 32-bit id written as a number or a hex string ("0x1DB110DE").
std::uint32_t hex_id(Reader& reader, const Cursor& at) {
  if (at.value->is_number()) return static_cast<std::uint32_t>(reader.whole(at, UINT32_MAX));
  const std::string text = reader.string(at);
  std::uint32_t value = 0;
  const bool prefixed = text.starts_with("0x") || text.starts_with("0X");
  const char* first = text.data() + (prefixed ? 2 : 0);
  auto [end, ec] = std::from_chars(first, text.data() + text.size(), value, 16);
  if (!reader.failed() && (!prefixed || ec != std::errc() || end != text.data() + text.size())) {
    reader.fail(at, fmt::format("expected a hex id such as \"0x1DB110DE\", found \"{}\"", text));
  }
  return value;
}

// "0000:06:00.0" or "00000000:06:00.0" → the parts, and the 8-digit upper-case spelling.
void bus_id(Reader& reader, const Cursor& at, PciSpec& pci) {
  const std::string text = reader.string(at);
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  int consumed = 0;
  const int fields =
      std::sscanf(text.c_str(), "%x:%x:%x.%x%n", &domain, &bus, &device, &function, &consumed);
  if (!reader.failed() && (fields != 4 || static_cast<std::size_t>(consumed) != text.size() ||
                           bus > 0xFF || device > 31)) {
    reader.fail(
        at, fmt::format("expected a PCI bus id such as \"00000000:06:00.0\", found \"{}\"", text));
  }
  pci.domain = domain;
  pci.bus = bus;
  pci.device = device;
  pci.bus_id = fmt::format("{:08X}:{:02X}:{:02X}.{:X}", domain, bus, device, function);
}

PciSpec pci(Reader& reader, const std::optional<Cursor>& at, std::size_t index) {
  PciSpec pci;
  pci.device_id = 0x000010DE;
  pci.bus_id = fmt::format("00000000:{:02X}:00.0", index + 1);
  pci.bus = static_cast<std::uint32_t>(index + 1);
  if (!at) return pci;
  const ObjectCursor object =
      reader.object(*at, {"bus_id", "device_id", "subsystem_id", "link_generation", "link_width",
                          "tx_kbps", "rx_kbps"});
  if (auto id = reader.member(object, "bus_id")) bus_id(reader, *id, pci);
  if (auto id = reader.member(object, "device_id")) pci.device_id = hex_id(reader, *id);
  if (auto id = reader.member(object, "subsystem_id")) pci.subsystem_id = hex_id(reader, *id);
  pci.link_generation = static_cast<unsigned>(reader.whole_or(object, "link_generation", 3, 6));
  pci.link_width = static_cast<unsigned>(reader.whole_or(object, "link_width", 16, 32));
  pci.tx_kbps_at_full_load = reader.number_or(object, "tx_kbps", 0);
  pci.rx_kbps_at_full_load = reader.number_or(object, "rx_kbps", 0);
  return pci;
}

Clocks clocks(Reader& reader, const Cursor& at) {
  const ObjectCursor object = reader.object(at, {"graphics", "sm", "memory", "video"});
  auto mhz = [&](std::string_view key) {
    return static_cast<unsigned>(reader.whole_or(object, key, 0, 100'000));
  };
  return Clocks{mhz("graphics"), mhz("sm"), mhz("memory"), mhz("video")};
}

// A number (the same at idle and under load) or {"idle", "busy"} (plus `extra_keys`).
Range range(Reader& reader, const std::optional<Cursor>& at, Range fallback, double high,
            const Reader::Keys& extra_keys = {}) {
  if (!at) return fallback;
  if (at->value->is_number()) {
    const double value = reader.number_in(*at, 0, high);
    return Range{value, value};
  }
  Reader::Keys keys{"idle", "busy"};
  keys.insert(keys.end(), extra_keys.begin(), extra_keys.end());
  const ObjectCursor object = reader.object(*at, keys);
  Range out = fallback;
  if (auto idle = reader.member(object, "idle")) out.idle = reader.number_in(*idle, 0, high);
  if (auto busy = reader.member(object, "busy")) out.busy = reader.number_in(*busy, 0, high);
  return out;
}

void compute_capability(Reader& reader, const Cursor& at, DeviceSpec& d) {
  const std::string text = reader.string(at);
  if (reader.failed()) return;
  if (std::sscanf(text.c_str(), "%d.%d", &d.cc_major, &d.cc_minor) != 2) {
    reader.fail(at, fmt::format("expected \"major.minor\" such as \"7.0\", found \"{}\"", text));
  }
}

void unsupported(Reader& reader, const Cursor& at, DeviceSpec& d) {
  for (const Cursor& item : reader.elements(at)) {
    const std::string name = reader.string(item);
    if (reader.failed()) return;
    if (auto feature = feature_by_name(name)) {
      d.unsupported.set(bit(*feature));
    } else {
      reader.fail(
          item, fmt::format("unknown feature \"{}\" (expected one of {})", name, feature_names()));
    }
  }
}

void memory(Reader& reader, const ObjectCursor& object, DeviceSpec& d) {
  d.memory_total_bytes =
      reader.whole(reader.required(object, "memory_total_bytes", "a number of bytes"));
  d.memory_reserved_bytes =
      reader.whole_or(object, "memory_reserved_bytes", 0, d.memory_total_bytes);
}

// Power draw goes from power_idle_w (idle) to power_limit_w (100 % utilisation).
void power(Reader& reader, const ObjectCursor& object, DeviceSpec& d) {
  d.power_limit_w = 250;
  if (auto limit = reader.member(object, "power_limit_w"))
    d.power_limit_w = reader.number_in(*limit, 1, 100'000);
  d.power_w = Range{d.power_limit_w / 8, d.power_limit_w};
  if (auto idle = reader.member(object, "power_idle_w"))
    d.power_w.idle = reader.number_in(*idle, 0, d.power_limit_w);
}

void temperature(Reader& reader, const std::optional<Cursor>& at, DeviceSpec& d) {
  d.temperature_c = range(reader, at, Range{35, 70}, 150, {"slowdown"});
  d.slowdown_temperature_c = 90;
  if (at && at->value->is_object()) {
    d.slowdown_temperature_c =
        static_cast<unsigned>(reader.whole_or(ObjectCursor{*at, {}}, "slowdown", 90, 200));
  }
}

void accounting(Reader& reader, const Cursor& at, DeviceSpec& d) {
  const ObjectCursor object = reader.object(at, {"enabled", "buffer_size"});
  d.accounting_enabled = reader.boolean_or(object, "enabled", false);
  d.accounting_buffer_size =
      static_cast<unsigned>(reader.whole_or(object, "buffer_size", 4000, 1'000'000));
}

void scripted(Reader& reader, const Cursor& at, DeviceSpec& d) {
  const ObjectCursor object = reader.object(at, {"gpu", "memory"});
  if (auto gpu = reader.member(object, "gpu"))
    d.scripted_gpu_utilization = profile(reader, *gpu, 0, 100);
  if (auto mem = reader.member(object, "memory"))
    d.scripted_memory_utilization = profile(reader, *mem, 0, 100);
}

void sampling(Reader& reader, const ObjectCursor& object, DeviceSpec& d) {
  if (auto period = reader.member(object, "sample_period_ms")) {
    d.sample_period_us = static_cast<std::int64_t>(reader.number_in(*period, 1, 60'000) * 1000.0);
  }
  d.sample_buffer_s = reader.number_or(object, "sample_buffer_s", 20);
  d.process_sample_capacity =
      static_cast<unsigned>(reader.whole_or(object, "process_sample_capacity", 100, 100'000));
}

void identity(Reader& reader, const ObjectCursor& object, DeviceSpec& d, std::size_t index) {
  d.name = reader.string(reader.required(object, "name", "the product name, a string"));
  // Without one, a UUID that is unique within the scenario.
  d.uuid = fmt::format("GPU-00000000-0000-4000-8000-{:012x}", index);
  if (auto uuid = reader.member(object, "uuid")) {
    d.uuid = reader.string(*uuid);
    if (!reader.failed() && !d.uuid.starts_with("GPU-"))
      reader.fail(*uuid, "expected a UUID starting with \"GPU-\"");
  }
  if (auto serial = reader.member(object, "serial"))
    d.serial = reader.string(*serial);
  else
    d.unsupported.set(bit(Feature::serial));
  d.pci = pci(reader, reader.member(object, "pci"), index);
  d.minor_number = static_cast<unsigned>(reader.whole_or(object, "minor_number", index, 255));
  if (auto arch = reader.member(object, "architecture"))
    d.architecture = named(reader, *arch, kArchitectures);
  if (auto cc = reader.member(object, "compute_capability")) compute_capability(reader, *cc, d);
}

// Boards before Ampere retire pages; later ones remap rows (and report no retired pages).
void retired_pages(Reader& reader, const Cursor& at, DeviceSpec& d) {
  const ObjectCursor pages = reader.object(at, {"single_bit", "double_bit", "pending"});
  if (remaps_rows(d)) {
    reader.fail(at, "retired pages are reported before Ampere; this board remaps rows instead");
    return;
  }
  d.retired_single_bit = static_cast<unsigned>(reader.whole_or(pages, "single_bit", 0, 65'535));
  d.retired_double_bit = static_cast<unsigned>(reader.whole_or(pages, "double_bit", 0, 65'535));
  d.retirement_pending = reader.boolean_or(pages, "pending", false);
}

void state(Reader& reader, const ObjectCursor& object, DeviceSpec& d) {
  memory(reader, object, d);
  if (auto c = reader.member(object, "clocks_mhz")) d.clocks = clocks(reader, *c);
  auto max = reader.member(object, "max_clocks_mhz");
  d.max_clocks = max ? clocks(reader, *max) : d.clocks;
  power(reader, object, d);
  d.fan_percent = range(reader, reader.member(object, "fan_percent"), Range{30, 30}, 100);
  temperature(reader, reader.member(object, "temperature_c"), d);
  const Range pstate = range(reader, reader.member(object, "pstate"), Range{8, 0}, 15);
  d.pstate_idle = static_cast<unsigned>(pstate.idle);
  d.pstate_busy = static_cast<unsigned>(pstate.busy);
  if (auto ecc = reader.member(object, "ecc_errors")) {
    const ObjectCursor counts = reader.object(
        *ecc, {"corrected", "uncorrected", "volatile_corrected", "volatile_uncorrected"});
    d.ecc_corrected = reader.whole_or(counts, "corrected", 0);
    d.ecc_uncorrected = reader.whole_or(counts, "uncorrected", 0);
    d.ecc_volatile_corrected = reader.whole_or(counts, "volatile_corrected", d.ecc_corrected);
    d.ecc_volatile_uncorrected = reader.whole_or(counts, "volatile_uncorrected", d.ecc_uncorrected);
  }
  if (auto h = reader.member(object, "health")) {
    const ObjectCursor health =
        reader.object(*h, {"pcie_replays", "remapped_rows_corrected", "remapped_rows_uncorrected",
                           "remap_pending", "remap_failed", "retired_pages"});
    d.pcie_replays = static_cast<unsigned>(reader.whole_or(health, "pcie_replays", 0));
    d.remapped_corrected =
        static_cast<unsigned>(reader.whole_or(health, "remapped_rows_corrected", 0));
    d.remapped_uncorrected =
        static_cast<unsigned>(reader.whole_or(health, "remapped_rows_uncorrected", 0));
    d.remap_pending = reader.boolean_or(health, "remap_pending", false);
    d.remap_failed = reader.boolean_or(health, "remap_failed", false);
    if (auto r = reader.member(health, "retired_pages")) retired_pages(reader, *r, d);
  }
}

void modes(Reader& reader, const ObjectCursor& object, DeviceSpec& d, std::size_t index) {
  if (auto mode = reader.member(object, "compute_mode"))
    d.compute_mode = named(reader, *mode, kComputeModes);
  d.persistence_mode = reader.boolean_or(object, "persistence_mode", true);
  d.energy_offset_mj = reader.number_or(object, "energy_offset_mj", 0);
  if (auto a = reader.member(object, "accounting")) accounting(reader, *a, d);
  if (auto m = reader.member(object, "mig")) mig(reader, *m, d, index);
  if (auto g = reader.member(object, "gpm")) gpm(reader, *g, d);
  if (auto u = reader.member(object, "utilization")) scripted(reader, *u, d);
  if (auto u = reader.member(object, "unsupported")) unsupported(reader, *u, d);
}

}  // namespace

const Reader::Keys& device_keys() {
  static const Reader::Keys keys{"name",
                                 "uuid",
                                 "serial",
                                 "pci",
                                 "minor_number",
                                 "architecture",
                                 "compute_capability",
                                 "memory_total_bytes",
                                 "memory_reserved_bytes",
                                 "clocks_mhz",
                                 "max_clocks_mhz",
                                 "power_limit_w",
                                 "power_idle_w",
                                 "fan_percent",
                                 "temperature_c",
                                 "pstate",
                                 "ecc_errors",
                                 "health",
                                 "compute_mode",
                                 "persistence_mode",
                                 "sample_period_ms",
                                 "sample_buffer_s",
                                 "process_sample_capacity",
                                 "energy_offset_mj",
                                 "accounting",
                                 "mig",
                                 "gpm",
                                 "utilization",
                                 "unsupported"};
  return keys;
}

DeviceSpec device(Reader& reader, const Cursor& at, const Cursor& defaults, std::size_t index) {
  const ObjectCursor object = reader.object(at, defaults, device_keys());
  DeviceSpec d;
  d.line = reader.line(at);
  identity(reader, object, d, index);
  state(reader, object, d);
  sampling(reader, object, d);
  modes(reader, object, d, index);
  return d;
}

}  // namespace gpumeter::sim::parse
