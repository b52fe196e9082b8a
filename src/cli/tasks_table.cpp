// SPDX-License-Identifier: MIT
#include "cli/tasks_table.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <vector>

#include "cli/table.h"
#include "view/humanize.h"

namespace gpumeter::cli {
namespace {

using nlohmann::json;

const json kNull;

// A key of an object, or null: replies from another version may lack it.
const json& at(const json& object, std::string_view key) {
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

std::string seconds_text(double seconds) {
  if (seconds >= 60.0) return view::format_age(static_cast<TimeUs>(std::llround(seconds * 1e6)));
  return fmt::format("{:.{}f}s", seconds, seconds < 10.0 ? 2 : 1);
}

std::string labels_text(const json& labels) {
  std::string text;
  if (!labels.is_object()) return text;
  for (const auto& [key, value] : labels.items()) {
    if (!text.empty()) text += ',';
    text += fmt::format("{}={}", key, value.is_string() ? value.get<std::string>() : value.dump());
  }
  return text;
}

std::string user_text(const json& task) {
  if (at(task, "user").is_string()) return at(task, "user").get<std::string>();
  if (at(task, "uid").is_number_unsigned())
    return std::to_string(at(task, "uid").get<std::uint32_t>());
  return "?";
}

std::string duration_text(const json& task, TimeUs now_us) {
  if (at(task, "duration_seconds").is_number()) {
    return seconds_text(at(task, "duration_seconds").get<double>());
  }
  if (!at(task, "begin_time_us").is_number_integer()) return std::string(view::kNotAvailable);
  const auto elapsed = now_us - at(task, "begin_time_us").get<TimeUs>();
  return seconds_text(static_cast<double>(std::max<TimeUs>(elapsed, 0)) / 1e6);
}

// One text per GPU, joined by '/': "80%/12%".
template <class Format>
std::string per_gpu(const json& gpus, std::string_view key, Format format) {
  std::string text;
  for (const json& gpu : gpus) {
    if (!text.empty()) text += '/';
    text += at(gpu, key).is_number() ? format(at(gpu, key).get<double>())
                                     : std::string(view::kNotAvailable);
  }
  return text;
}

std::string energy_text(const json& gpus) {
  double joules = 0.0;
  for (const json& gpu : gpus) {
    if (!at(gpu, "energy_joules").is_number()) return std::string(view::kNotAvailable);
    joules += at(gpu, "energy_joules").get<double>();
  }
  return fmt::format("{:.1f}J", joules);
}

std::string cpu_text(const json& host) {
  const json& user = at(host, "cpu_user_seconds");
  const json& system = at(host, "cpu_system_seconds");
  if (!user.is_number() || !system.is_number()) return std::string(view::kNotAvailable);
  return seconds_text(user.get<double>() + system.get<double>());
}

std::string flags_text(const json& task) {
  // Appended in place: g++ 12 at -O2 saw a null dereference in a vector<string_view>'s growth
  // here (-Wnull-dereference), which it cannot have.
  std::string flags;
  const auto add = [&flags](std::string_view flag) {
    if (!flags.empty()) flags += ',';
    flags += flag;
  };
  const json& state = at(task, "state");
  if (state == "open" || state == "ending") add(state.get_ref<const std::string&>());
  if (at(task, "abandoned") == true) add("abandoned");
  const json& usage = at(task, "usage");
  if (state == "ended" && usage.is_null()) add("no-figures");
  bool low = false;
  bool device_level = false;
  for (const json& gpu : at(usage, "gpus")) {
    low = low || at(gpu, "low_confidence") == true;
    device_level = device_level || at(gpu, "attribution") == "device";
  }
  if (low) add("low-confidence");
  if (device_level) add("device-level");
  if (at(at(usage, "host"), "complete") == false) add("cpu-partial");
  return flags;
}

Row usage_cells(const json& usage) {
  if (!usage.is_object()) return {{}, {}, {}, {}, {}};
  const json& gpus = at(usage, "gpus");
  if (!gpus.is_array() || gpus.empty())
    return {{"-"}, {"-"}, {"-"}, {"-"}, {cpu_text(at(usage, "host"))}};
  std::string indices;
  for (const json& gpu : gpus) {
    if (!indices.empty()) indices += ',';
    indices += at(gpu, "index").dump();
  }
  return {{indices},
          {per_gpu(gpus, "sm_percent", [](double v) { return fmt::format("{:.0f}%", v); })},
          {per_gpu(gpus, "memory_peak_bytes", [](double v) { return view::format_bytes(v); })},
          {energy_text(gpus)},
          {cpu_text(at(usage, "host"))}};
}

Row task_row(const json& task, TimeUs now_us) {
  const json& begin = at(task, "begin_time_us");
  Row row{{at(task, "task").dump()},
          {at(task, "name").is_string() ? at(task, "name").get<std::string>() : "?"},
          {labels_text(at(task, "labels"))},
          {at(task, "pid").dump()},
          {user_text(task)},
          {begin.is_number_integer() ? view::local_time(begin.get<TimeUs>())
                                     : std::string(view::kNotAvailable)},
          {duration_text(task, now_us)}};
  for (Cell& cell : usage_cells(at(task, "usage"))) row.push_back(std::move(cell));
  row.push_back({flags_text(task)});
  return row;
}

}  // namespace

std::string render_tasks_table(const json& reply, TimeUs now_us, bool color) {
  static const std::array<Column, 13> kTaskColumns{{
      {"TASK", Align::right},
      {"NAME"},
      {"LABELS"},
      {"PID", Align::right},
      {"USER"},
      {"STARTED"},
      {"DURATION", Align::right},
      {"GPU"},
      {"SM", Align::right},
      {"GPU MEM PEAK", Align::right},
      {"ENERGY", Align::right},
      {"CPU", Align::right},
      {"FLAGS"},
  }};
  std::vector<Row> rows;
  for (const char* list : {"tasks", "open"}) {
    const json& tasks = at(reply, list);
    if (!tasks.is_array()) continue;
    for (const json& task : tasks) rows.push_back(task_row(task, now_us));
  }
  if (rows.empty()) return "No tasks.\n";
  return render_table(kTaskColumns, rows, color);
}

}  // namespace gpumeter::cli
