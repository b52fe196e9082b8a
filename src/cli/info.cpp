// SPDX-License-Identifier: MIT
#include "cli/info.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <memory>

#include "cli/commands.h"
#include "cli/table.h"
#include "core/selection.h"
#include "view/humanize.h"

namespace gpumeter::cli {
namespace {

using enum DeviceMetric;

// Whole MiB, rounded down as nvidia-smi prints them.
std::optional<std::int64_t> whole_mib(const Maybe<double>& bytes) {
  if (!bytes) return std::nullopt;
  return static_cast<std::int64_t>(std::floor(*bytes / (1024.0 * 1024.0)));
}

Json optional_json(const auto& value) {
  return value ? Json(*value) : Json();
}

Json info_entry(const Device& device) {
  const std::optional<std::int64_t> used = whole_mib(device.state[memory_used]);
  const std::optional<std::int64_t> total = whole_mib(device.state[memory_total]);
  Json entry = Json::object();
  entry["index"] = fmt::format("{}", device.identity.index);
  entry["type"] = optional_json(device.identity.name);
  entry["uuid"] = optional_json(device.identity.uuid);
  entry["mem_used"] = optional_json(used);
  entry["mem_total"] = optional_json(total);
  // From the whole MiB figures, as nvgpu computes it.
  entry["mem_used_percent"] =
      used && total && *total > 0
          ? Json(100.0 * static_cast<double>(*used) / static_cast<double>(*total))
          : Json();
  return entry;
}

const std::array<Column, 5> kInfoColumns{{
    {"GPU", Align::right},
    {"NAME", Align::left},
    {"UUID", Align::left},
    {"MEMORY", Align::right},
    {"USED", Align::right},
}};

Row info_row(const Device& device) {
  const std::optional<double> percent = memory_used_percent(device.state);
  return {
      {fmt::format("{}", device.identity.index)},
      {device.identity.name.value_or(std::string(view::kNotAvailable))},
      {device.identity.uuid.value_or(std::string(view::kNotAvailable))},
      {view::format_memory(device.state[memory_used], device.state[memory_total])},
      {percent ? fmt::format("{:.1f}%", *percent) : std::string(view::kNotAvailable)},
  };
}

}  // namespace

Json info_json(const Snapshot& snapshot) {
  Json out = Json::array();
  for (const Device& device : snapshot.gpus.devices) out.push_back(info_entry(device));
  return out;
}

std::string render_info_table(const Snapshot& snapshot, bool color) {
  std::vector<Row> rows;
  rows.reserve(snapshot.gpus.devices.size());
  for (const Device& device : snapshot.gpus.devices) rows.push_back(info_row(device));
  std::string out = render_table(kInfoColumns, rows, color);
  if (rows.empty()) out += "no GPUs found\n";
  return out;
}

Subcommand add_info_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* info = app.add_subcommand("info", "Show each GPU's name, uuid and memory");
  info->add_flag("--json", *json, "Print the JSON array nvgpu's gpu_info() returns");
  return {info, [json](Context& context) {
            auto snapshot = context.session.inventory();
            if (!snapshot) return report(context.err, snapshot.error());
            context.out << (*json ? dump_json(info_json(*snapshot), false) + '\n'
                                  : render_info_table(*snapshot, context.color))
                        << std::flush;
            return 0;
          }};
}

}  // namespace gpumeter::cli
