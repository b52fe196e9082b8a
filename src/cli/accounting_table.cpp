// SPDX-License-Identifier: MIT
#include "cli/accounting_table.h"

#include <fmt/format.h>

#include <array>
#include <vector>

#include "cli/table.h"
#include "view/humanize.h"

namespace gpumeter::cli {
namespace {

const std::array<Column, 5> kStatusColumns{{
    {"GPU", Align::right},
    {"ACCOUNTING", Align::left},
    {"BUFFER", Align::right},
    {"RECORDS", Align::right},
    {"PERSISTENCE", Align::left},
}};

const std::array<Column, 10> kRecordColumns{{
    {"GPU", Align::right},
    {"PID", Align::right},
    {"USER", Align::left},
    {"GPU%", Align::right},
    {"MEM%", Align::right},
    {"PEAK MEMORY", Align::right},
    {"RUN TIME", Align::right},
    {"STARTED", Align::left},
    {"STATE", Align::left},
    {"COMMAND", Align::left},
}};

std::string on_off(const Maybe<bool>& value) {
  if (!value) return fmt::format("{} ({})", view::kNotAvailable, to_string(value.error()));
  return *value ? "on" : "off";
}

std::string mode_text(const Maybe<Accounting>& accounting) {
  if (!accounting)
    return fmt::format("{} ({})", view::kNotAvailable, to_string(accounting.error()));
  return accounting->enabled ? "enabled" : "disabled";
}

template <class T>
std::string count_text(const Maybe<T>& value) {
  return value ? fmt::format("{}", *value) : std::string(view::kNotAvailable);
}

Row status_row(const Device& device) {
  const Maybe<Accounting>& a = device.accounting;
  const Maybe<std::uint32_t> buffer =
      a ? a->buffer_size : Maybe<std::uint32_t>(std::unexpected(a.error()));
  const Maybe<std::size_t> records =
      a && a->records ? Maybe<std::size_t>(a->records->size())
                      : Maybe<std::size_t>(std::unexpected(Unavailable::not_supported));
  return {{fmt::format("{}", device.identity.index)},
          {mode_text(a), a && a->enabled ? Color::green : Color::none},
          {count_text(buffer)},
          {count_text(records)},
          {on_off(device.state.persistence_mode)}};
}

std::string run_time(const AccountingRecord& record, TimeUs now_us) {
  if (record.time_ms) return view::format_age(static_cast<TimeUs>(*record.time_ms) * 1000);
  return view::format_age(now_us - record.start_time_us);
}

std::string text_or_na(const std::optional<std::string>& text) {
  return text ? *text : std::string(view::kNotAvailable);
}

Row record_row(const Device& device, const AccountingRecord& record, TimeUs now_us,
               const std::optional<view::KnownProcess>& known) {
  const Maybe<double> peak = record.max_memory_bytes
                                 ? Maybe<double>(static_cast<double>(*record.max_memory_bytes))
                                 : Maybe<double>(std::unexpected(record.max_memory_bytes.error()));
  return {{fmt::format("{}", device.identity.index)},
          {fmt::format("{}", record.pid)},
          {known ? text_or_na(known->user) : std::string(view::kNotAvailable)},
          {view::format_whole(record.gpu_util_percent, "%")},
          {view::format_whole(record.memory_util_percent, "%")},
          {peak ? view::format_bytes(*peak) : std::string(view::kNotAvailable)},
          {run_time(record, now_us)},
          {view::local_time(record.start_time_us)},
          {record.running ? "running" : "exited", record.running ? Color::green : Color::none},
          {known ? text_or_na(known->command) : std::string(view::kNotAvailable)}};
}

// Why a GPU shows no records, or nothing when it has them.
std::optional<std::string> no_records_note(const Device& device) {
  const auto index = device.identity.index;
  const Maybe<Accounting>& a = device.accounting;
  if (!a)
    return fmt::format("GPU {}: accounting mode unavailable ({})", index, to_string(a.error()));
  if (!a->enabled) return fmt::format("GPU {}: accounting mode is disabled", index);
  if (!a->records)
    return fmt::format("GPU {}: records unavailable ({})", index, to_string(a->records.error()));
  return std::nullopt;
}

}  // namespace

std::string render_accounting_status(const Snapshot& snapshot, bool color) {
  std::vector<Row> rows;
  rows.reserve(snapshot.gpus.devices.size());
  for (const Device& device : snapshot.gpus.devices) rows.push_back(status_row(device));
  std::string out = render_table(kStatusColumns, rows, color);
  if (rows.empty()) out += "no GPUs found\n";
  return out;
}

std::string render_accounting_records(const Snapshot& snapshot,
                                      const view::KnownProcessLookup& lookup, bool color) {
  std::vector<Row> rows;
  std::string notes;
  for (const Device& device : snapshot.gpus.devices) {
    if (auto note = no_records_note(device)) {
      notes += *note + '\n';
      continue;
    }
    for (const AccountingRecord& record : *device.accounting->records) {
      rows.push_back(record_row(device, record, snapshot.time_us,
                                lookup ? lookup(device, record) : std::nullopt));
    }
  }
  std::string out = rows.empty() ? std::string("No accounting records.\n")
                                 : render_table(kRecordColumns, rows, color);
  return out + notes;
}

}  // namespace gpumeter::cli
