// SPDX-License-Identifier: MIT
#include "cli/idle_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/report_table.h"
#include "cli/table.h"
#include "cli/usage_keys.h"
#include "view/humanize.h"
#include "view/report_time.h"

namespace gpumeter::cli {
namespace {

std::string user_of(const store::IdleSpell& spell) {
  return spell.process.process.user.value_or("");
}

// "30m", "2h 30m", "1d 4h": the two largest units, without zero parts.
std::string span_text(TimeUs duration_us) {
  const std::int64_t minutes = std::max<std::int64_t>(0, duration_us / 60'000'000);
  const std::int64_t days = minutes / 1440;
  const std::int64_t hours = minutes / 60 % 24;
  const std::int64_t rest = minutes % 60;
  // Formatted whole: `" " + std::string` trips g++ 12's -Wrestrict in Release builds.
  if (days > 0) return hours > 0 ? fmt::format("{}d {}h", days, hours) : fmt::format("{}d", days);
  if (hours > 0) return rest > 0 ? fmt::format("{}h {}m", hours, rest) : fmt::format("{}h", hours);
  return fmt::format("{}m", minutes);
}

std::string thresholds(const store::IdleQuery& query) {
  return fmt::format("at most {}% SM use for at least {}", query.max_sm_percent,
                     span_text(query.min_duration_us));
}

Row table_row(const store::IdleSpell& spell, TimeUs until_us, bool color) {
  const store::ProcessIdentity& process = spell.process.process;
  const IdleState state = idle_state(spell, until_us);
  const std::string user = user_of(spell);
  return Row{{user.empty() ? "?" : user},
             {fmt::format("{}", process.pid)},
             {cut(process.command.value_or(""), kCommandWidth)},
             {fmt::format("{}", process.gpu_index)},
             {view::format_bytes(static_cast<double>(spell.peak_memory_bytes))},
             {view::local_minute(spell.begin_us)},
             {span_text(spell.end_us - spell.begin_us)},
             {state == IdleState::still_idle ? "still idle" : std::string(to_string(state)),
              state == IdleState::still_idle && color ? Color::red : Color::none}};
}

}  // namespace

IdleState idle_state(const store::IdleSpell& spell, TimeUs until_us) {
  const TimeUs last_seen = spell.process.last_seen_us;
  // A spell is made of whole minutes: it reaches the last record when its last minute holds it.
  if (spell.end_us < std::min(last_seen, until_us)) return IdleState::ended;
  if (spell.process.final && last_seen <= until_us) return IdleState::exited;
  return IdleState::still_idle;
}

std::string_view to_string(IdleState state) {
  switch (state) {
    case IdleState::still_idle: return "still_idle";
    case IdleState::exited: return "exited";
    case IdleState::ended: return "ended";
  }
  return "ended";
}

std::string render_idle_table(const IdleReport& report, bool color) {
  const store::IdleQuery& query = report.query;
  if (report.spells.empty()) {
    return fmt::format("no process held a GPU idle ({}) {}\n", thresholds(query),
                       describe_window(query.since_us, query.until_us));
  }
  static const std::vector<Column> kColumns{{"USER"},
                                            {"PID", Align::right},
                                            {"COMMAND"},
                                            {"GPU", Align::right},
                                            {"MEMORY", Align::right},
                                            {"IDLE SINCE"},
                                            {"FOR", Align::right},
                                            {"STATE"}};
  std::vector<Row> rows;
  rows.reserve(report.spells.size());
  for (const store::IdleSpell& spell : report.spells)
    rows.push_back(table_row(spell, query.until_us, color));
  return fmt::format("GPU memory held idle ({}) {} ({})\n", thresholds(query),
                     describe_window(query.since_us, query.until_us), report.database) +
         render_table(kColumns, rows, color);
}

std::string render_idle_csv(const IdleReport& report) {
  std::string out =
      "host,user,pid,process_start,command,gpu_index,gpu_uuid,memory_held_bytes,idle_since,"
      "idle_until,idle_seconds,sm_percent,state\n";
  for (const store::IdleSpell& spell : report.spells) {
    const store::ProcessIdentity& process = spell.process.process;
    const double sm_percent =
        spell.held_seconds > 0 ? 100.0 * spell.sm_busy_seconds / spell.held_seconds : 0.0;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(spell.process.host),
                       csv_field(user_of(spell)), process.pid,
                       process.start_time_us != 0 ? view::iso8601_utc(process.start_time_us) : "",
                       csv_field(process.command.value_or("")), process.gpu_index,
                       csv_field(process.gpu_uuid), spell.peak_memory_bytes,
                       view::iso8601_utc(spell.begin_us), view::iso8601_utc(spell.end_us),
                       (spell.end_us - spell.begin_us) / 1'000'000, sm_percent,
                       to_string(idle_state(spell, report.query.until_us)));
  }
  return out;
}

}  // namespace gpumeter::cli
