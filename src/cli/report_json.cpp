// SPDX-License-Identifier: MIT
#include "cli/report_json.h"

#include "view/humanize.h"

namespace gpumeter::cli {
namespace {

Json holder_json(const store::IdleSpell& spell, TimeUs until_us) {
  const store::ProcessIdentity& process = spell.process.process;
  Json holder{{"host", spell.process.host},
              {"user", view::text_or_null(process.user.value_or(""))},
              {"pid", process.pid}};
  holder["process_start"] =
      process.start_time_us != 0 ? Json(view::iso8601_utc(process.start_time_us)) : Json(nullptr);
  holder["process_start_time_us"] =
      process.start_time_us != 0 ? Json(process.start_time_us) : Json(nullptr);
  holder["command"] = view::text_or_null(process.command.value_or(""));
  holder["gpu_index"] = process.gpu_index;
  holder["gpu_uuid"] = process.gpu_uuid;
  holder["memory_held_bytes"] = spell.peak_memory_bytes;
  view::put_time(holder, "idle_since", spell.begin_us);
  view::put_time(holder, "idle_until", spell.end_us);
  holder["idle_seconds"] = (spell.end_us - spell.begin_us) / 1'000'000;
  holder["sm_percent"] =
      spell.held_seconds > 0 ? 100.0 * spell.sm_busy_seconds / spell.held_seconds : 0.0;
  holder["state"] = std::string(to_string(idle_state(spell, until_us)));
  return holder;
}

}  // namespace

Json idle_json(const IdleReport& report) {
  Json document{{"schema_version", view::kReportSchemaVersion},
                {"report", "idle"},
                {"database", report.database}};
  view::put_window(document, report.query.since_us, report.query.until_us);
  document["min_idle_seconds"] = report.query.min_duration_us / 1'000'000;
  document["max_sm_percent"] = report.query.max_sm_percent;
  Json holders = Json::array();
  for (const store::IdleSpell& spell : report.spells)
    holders.push_back(holder_json(spell, report.query.until_us));
  document["holders"] = std::move(holders);
  return document;
}

}  // namespace gpumeter::cli
