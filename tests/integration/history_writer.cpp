// SPDX-License-Identifier: MIT
// Writes a history database through the store's own writer, for the report tests and the
// report benchmark: the schema stays defined in one place (src/store).
//
//   history_writer DATABASE [--host NAME] [--prune-at US] < intervals.jsonl
//
// Each input line is one process interval (store/records.h) as a JSON object:
//   {"pid": 101, "start_time_us": 0, "gpu_uuid": "GPU-0", "gpu_index": 0, "uid": 1000,
//    "user": "ada", "command": "train.py", "container": "docker:c1",
//    "begin_us": ..., "end_us": ..., "held_seconds": 60, "sm_busy_seconds": 30,
//    "peak_memory_bytes": 1073741824, "energy_joules": 12000, "final": false}
// uid, user, command, container, start_time_us and final may be left out.
// --prune-at US first prunes as a daemon would have at that time (per-minute detail older than
// 30 days is not kept), so that intervals before then reach only the ledger and the hours.
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "store/maintenance.h"
#include "store/write.h"

namespace {

using gpumeter::store::ProcessInterval;
using nlohmann::json;

constexpr std::size_t kBatchRows = 5000;

template <class T>
std::optional<T> optional_field(const json& line, const char* key) {
  if (!line.contains(key) || line[key].is_null()) return std::nullopt;
  return line[key].get<T>();
}

std::optional<gpumeter::Container> container_of(const json& line) {
  const auto text = optional_field<std::string>(line, "container");
  if (!text) return std::nullopt;
  const auto colon = text->find(':');
  return gpumeter::Container{text->substr(0, colon),
                             colon == std::string::npos ? "" : text->substr(colon + 1)};
}

ProcessInterval interval_of(const json& line) {
  ProcessInterval interval;
  gpumeter::store::ProcessIdentity& process = interval.process;
  process.pid = line.at("pid").get<gpumeter::Pid>();
  process.start_time_us = line.value("start_time_us", gpumeter::TimeUs{0});
  process.gpu_uuid = line.at("gpu_uuid").get<std::string>();
  process.gpu_index = line.at("gpu_index").get<std::uint32_t>();
  process.uid = optional_field<std::uint32_t>(line, "uid");
  process.user = optional_field<std::string>(line, "user");
  process.command = optional_field<std::string>(line, "command");
  process.container = container_of(line);
  interval.begin_us = line.at("begin_us").get<gpumeter::TimeUs>();
  interval.end_us = line.at("end_us").get<gpumeter::TimeUs>();
  interval.held_seconds = line.at("held_seconds").get<double>();
  interval.sm_busy_seconds = line.at("sm_busy_seconds").get<double>();
  interval.peak_memory_bytes = line.at("peak_memory_bytes").get<std::uint64_t>();
  interval.energy_joules = line.at("energy_joules").get<double>();
  interval.final = line.value("final", false);
  return interval;
}

int fail(const std::string& message) {
  std::cerr << "history_writer: " << message << '\n';
  return 1;
}

struct Arguments {
  std::string database;
  std::string host = "node1";
  std::optional<gpumeter::TimeUs> prune_at;
};

std::optional<Arguments> parse(int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  Arguments arguments{.database = argv[1]};
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    if (option == "--host") {
      arguments.host = argv[i + 1];
    } else if (option == "--prune-at") {
      arguments.prune_at = std::stoll(argv[i + 1]);
    } else {
      return std::nullopt;
    }
  }
  return arguments;
}

}  // namespace

int main(int argc, char** argv) {
  const auto arguments = parse(argc, argv);
  if (!arguments) return fail("usage: history_writer DATABASE [--host NAME] [--prune-at US]");
  auto db = gpumeter::store::Store::open(arguments->database, {.host = arguments->host});
  if (!db) return fail(db.error().message);
  if (arguments->prune_at) {
    if (auto pruned = gpumeter::store::prune(*db, *arguments->prune_at); !pruned)
      return fail(pruned.error().message);
  }
  gpumeter::store::Batch batch;
  std::size_t number = 0;
  const auto flush = [&]() -> bool {
    const auto written = gpumeter::store::write(*db, batch);
    batch = {};
    if (!written) std::cerr << "history_writer: " << written.error().message << '\n';
    return written.has_value();
  };
  for (std::string line; std::getline(std::cin, line);) {
    ++number;
    if (line.empty()) continue;
    const json parsed = json::parse(line, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object())
      return fail(fmt::format("line {}: not a JSON object", number));
    try {
      batch.process_intervals.push_back(interval_of(parsed));
    } catch (const json::exception& error) {
      return fail(fmt::format("line {}: {}", number, error.what()));
    }
    if (batch.rows() >= kBatchRows && !flush()) return 1;
  }
  return flush() ? 0 : 1;
}
