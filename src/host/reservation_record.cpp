// SPDX-License-Identifier: MIT
#include "host/reservation_record.h"

#include <fmt/format.h>

#include "core/text.h"

namespace gpumeter::host {
namespace {

std::optional<std::string_view> value_of(std::string_view line, std::string_view key) {
  auto fields = split_fields(line);
  if (fields.size() != 2 || fields[0] != key) return std::nullopt;
  return fields[1];
}

bool is_plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

}  // namespace

std::string format_record(const ReservationRecord& record) {
  std::string start = record.owner_start_ticks ? std::to_string(*record.owner_start_ticks) : "-";
  return fmt::format("owner_pid {}\nowner_start_ticks {}\nexpires_us {}\n", record.owner_pid, start,
                     record.expires_us);
}

std::optional<ReservationRecord> parse_record(std::string_view text) {
  auto lines = split_lines(text);
  if (lines.size() != 3) return std::nullopt;
  auto pid = value_of(lines[0], "owner_pid");
  auto start = value_of(lines[1], "owner_start_ticks");
  auto expires = value_of(lines[2], "expires_us");
  if (!pid || !start || !expires) return std::nullopt;
  ReservationRecord record;
  auto pid_value = parse_integer<int>(*pid);
  auto expires_value = parse_integer<TimeUs>(*expires);
  if (!pid_value || *pid_value <= 0 || !expires_value) return std::nullopt;
  record.owner_pid = *pid_value;
  record.expires_us = *expires_value;
  if (*start != "-") {
    record.owner_start_ticks = parse_integer<std::uint64_t>(*start);
    if (!record.owner_start_ticks) return std::nullopt;
  }
  return record;
}

bool is_live(const ReservationRecord& record, TimeUs now_us,
             std::optional<std::uint64_t> owner_start_now) {
  // An owner whose start could not be read at reservation time is taken to be whoever has
  // its pid now; a recorded start must match, so a reused pid does not hold anything.
  const bool owner_alive =
      owner_start_now && (!record.owner_start_ticks || owner_start_now == record.owner_start_ticks);
  return owner_alive && now_us < record.expires_us;
}

std::string reservation_file_name(std::string_view uuid) {
  std::string name;
  for (char c : uuid) {
    if (is_plain(c)) {
      name += c;
    } else {
      name += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    }
  }
  return name.empty() ? "%" : name;
}

}  // namespace gpumeter::host
