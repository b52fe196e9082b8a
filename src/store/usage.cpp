// SPDX-License-Identifier: MIT
#include "store/usage.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "store/buckets.h"
#include "store/meta.h"
#include "store/sqlite.h"

namespace gpumeter::store {
namespace {

// A run of rows of one detail tier: buckets in [from, to).
struct Segment {
  std::string_view table;
  TimeUs bucket_us;
  TimeUs from;
  TimeUs to;
};

// The slices of the window: whole hours from the hour rows, partial hours at the edges from the
// minute rows if they are still kept for that hour.
std::vector<Segment> segments(TimeUs since, TimeUs until, std::optional<TimeUs> minutes_pruned) {
  const TimeUs first_whole = bucket_start(since + kHourUs - 1, kHourUs);
  const TimeUs last_whole = bucket_start(until, kHourUs);
  const auto edge = [&](TimeUs from, TimeUs to) {
    const TimeUs hour = bucket_start(from, kHourUs);
    if (minutes_pruned && hour < *minutes_pruned)
      return Segment{"process_hours", kHourUs, hour, hour + kHourUs};
    return Segment{"process_minutes", kMinuteUs, bucket_start(from, kMinuteUs), to};
  };
  if (first_whole > last_whole) return {edge(since, until)};  // within one hour
  std::vector<Segment> parts;
  if (since < first_whole) parts.push_back(edge(since, first_whole));
  if (first_whole < last_whole)
    parts.push_back({"process_hours", kHourUs, first_whole, last_whole});
  if (last_whole < until) parts.push_back(edge(last_whole, until));
  return parts;
}

std::string slices_sql(const std::vector<Segment>& parts) {
  std::string sql;
  for (const Segment& part : parts) {
    if (!sql.empty()) sql += " UNION ALL ";
    sql += fmt::format(
        "SELECT process_id, bucket_us, held_seconds * w AS held, sm_busy_seconds * w AS busy, "
        "energy_joules * w AS energy, peak_memory_bytes AS peak, sm_unknown_seconds * w AS unknown "
        "FROM ("
        "SELECT *, (MIN(bucket_us + {0}, ?2) - MAX(bucket_us, ?1)) / {0}.0 AS w FROM {1} "
        "WHERE bucket_us >= {2} AND bucket_us < {3}) WHERE w > 0",
        part.bucket_us, part.table, part.from, part.to);
  }
  return sql;
}

struct Dimension {
  std::string select;  // the columns of the fixed key layout this dimension fills
  std::string group;
};

// The label of the period a bucket starts in ("2026-01-31T13", "2026-01-31", "2026-01").
std::string period_label(GroupBy period, bool local) {
  const std::string time =
      fmt::format("s.bucket_us / 1000000, 'unixepoch'{}", local ? ", 'localtime'" : "");
  switch (period) {
    case GroupBy::hour: return fmt::format("strftime('%Y-%m-%dT%H', {})", time);
    case GroupBy::day: return fmt::format("date({})", time);
    default: return fmt::format("strftime('%Y-%m', {})", time);
  }
}

// The period's start in µs, from its label; run once per result row, not per bucket.
std::string period_start(GroupBy period, bool local) {
  const char* to_utc = local ? ", 'utc'" : "";
  std::string date;
  switch (period) {
    case GroupBy::hour: date = "replace(label, 'T', ' ') || ':00:00'"; break;
    case GroupBy::day: date = "label"; break;
    default: date = "label || '-01'"; break;
  }
  return fmt::format("CAST(strftime('%s', {}{}) AS INTEGER) * 1000000", date, to_utc);
}

bool is_period(GroupBy by) {
  return by == GroupBy::hour || by == GroupBy::day || by == GroupBy::month;
}

Dimension dimension(GroupBy by, bool local) {
  switch (by) {
    case GroupBy::host: return {"h.name", "l.host_id"};
    case GroupBy::user: return {"COALESCE(l.user, '')", "COALESCE(l.user, '')"};
    case GroupBy::gpu: return {"d.uuid, d.device_index", "l.device_id"};
    case GroupBy::process:
      return {"l.pid, l.start_time_us, COALESCE(l.command, '')",
              "l.host_id, l.pid, l.start_time_us"};
    case GroupBy::container: {
      const char* container = "COALESCE(l.container_runtime || ':' || l.container_id, '')";
      return {container, container};
    }
    default: return {period_label(by, local), period_label(by, local)};
  }
}

// The key columns in their fixed layout, each either its dimension's or a placeholder.
std::string keys_sql(const std::vector<GroupBy>& group_by, bool local) {
  const auto key = [&](GroupBy by, const char* placeholder) {
    return std::ranges::count(group_by, by) > 0 ? dimension(by, local).select
                                                : std::string(placeholder);
  };
  const auto period = std::ranges::find_if(group_by, is_period);
  return fmt::format("{}, {}, {}, {}, {}, {} AS label", key(GroupBy::host, "''"),
                     key(GroupBy::user, "''"), key(GroupBy::gpu, "'', NULL"),
                     key(GroupBy::process, "NULL, NULL, ''"), key(GroupBy::container, "''"),
                     period != group_by.end() ? dimension(*period, local).select : "''");
}

// Devices and hosts are looked up only when the query needs them: each join costs a lookup per
// slice.
std::string joins_sql(const UsageQuery& query) {
  const auto needs = [&](GroupBy by) { return std::ranges::count(query.group_by, by) > 0; };
  std::string joins;
  if (needs(GroupBy::gpu)) joins += "JOIN devices d ON d.id = l.device_id ";
  if (needs(GroupBy::host) || query.host) joins += "JOIN hosts h ON h.id = l.host_id ";
  return joins;
}

std::string usage_sql(const UsageQuery& query, const std::vector<Segment>& parts) {
  std::string group;
  for (const GroupBy by : query.group_by) {
    group += group.empty() ? "" : ", ";
    group += dimension(by, query.local_time).group;
  }
  const auto period = std::ranges::find_if(query.group_by, is_period);
  return fmt::format(
      "SELECT *, {} FROM ("
      "WITH slices AS ({}) "
      "SELECT {}, SUM(s.held) / 3600.0, SUM(s.busy) / 3600.0, SUM(s.energy) / 3600000.0, "
      "MAX(s.peak), COUNT(DISTINCT l.host_id || '/' || l.pid || '/' || l.start_time_us), "
      "SUM(s.unknown) / 3600.0, MAX(CASE WHEN s.unknown > 0 THEN l.sm_unknown_reason END) "
      "FROM slices s JOIN ledger l ON l.id = s.process_id {}"
      "WHERE (?3 IS NULL OR l.user = ?3) {}{}{}) LIMIT ?5 OFFSET ?6",
      period != query.group_by.end() ? period_start(*period, query.local_time) : "NULL",
      slices_sql(parts), keys_sql(query.group_by, query.local_time), joins_sql(query),
      query.host ? "AND h.name = ?4 " : "", group.empty() ? "" : "GROUP BY " + group,
      group.empty() ? "" : " ORDER BY " + group);
}

// Columns: the nine keys of keys_sql(), the five figures, the unknown SM hours and their
// reason, the period's start.
UsageRow usage_row(const sqlite::Statement& row) {
  UsageRow usage{.host = row.text(0), .user = row.text(1), .gpu_uuid = row.text(2)};
  usage.gpu_index = row.optional_as<std::uint32_t>(3);
  usage.pid = row.optional_as<Pid>(4);
  usage.process_start_time_us = row.optional_int64(5);
  usage.command = row.text(6);
  usage.container = row.text(7);
  usage.period = row.text(8);
  usage.gpu_hours = row.real(9);
  usage.sm_unknown_hours = row.real(14);
  usage.sm_unknown_reason = row.optional_text(15);
  // Unknown SM use is neither added as 0 nor spread over the known part: the SM figures cover
  // the known held hours only, and are absent when none are known.
  const double known_hours = usage.sm_known_hours();
  if (usage.sm_unknown_hours <= 0 || known_hours > kNegligibleHours) {
    usage.sm_busy_hours = row.real(10);
    usage.energy_kwh = row.real(11);
    if (known_hours > 0) usage.sm_percent_while_held = 100.0 * *usage.sm_busy_hours / known_hours;
  } else {
    usage.sm_busy_hours.reset();
    usage.energy_kwh.reset();
  }
  usage.peak_memory_bytes = static_cast<std::uint64_t>(row.int64(12));
  usage.processes = row.int64(13);
  usage.period_start_us = row.optional_int64(16);
  return usage;
}

std::expected<void, Error> validate(const UsageQuery& query) {
  if (query.until_us <= query.since_us) {
    return std::unexpected(
        Error{ErrorCode::invalid_input, "the report's window is empty (until <= since)"});
  }
  if (std::ranges::count_if(query.group_by, is_period) > 1) {
    return std::unexpected(
        Error{ErrorCode::invalid_input, "group by at most one of hour, day and month"});
  }
  return {};
}

}  // namespace

std::expected<std::vector<UsageRow>, Error> usage(Store& store, const UsageQuery& query) {
  if (auto valid = validate(query); !valid) return std::unexpected(std::move(valid.error()));
  auto pruned = meta::read(store.connection(), meta::kProcessMinutesPrunedBefore);
  if (!pruned) return std::unexpected(std::move(pruned.error()));
  auto statement = store.connection().prepare(
      usage_sql(query, segments(query.since_us, query.until_us, *pruned)));
  if (!statement) return std::unexpected(std::move(statement.error()));
  // SQLite reads a negative limit as none.
  const auto limit = query.limit ? static_cast<std::int64_t>(*query.limit) : std::int64_t{-1};
  statement->bind_all(query.since_us, query.until_us, query.user, query.host, limit,
                      static_cast<std::int64_t>(query.offset));
  std::vector<UsageRow> rows;
  for (;;) {
    auto row = statement->step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) return rows;
    // Without grouping, an empty window still yields one row of NULL sums: no usage at all.
    if (statement->is_null(13) || statement->int64(13) == 0) continue;
    rows.push_back(usage_row(*statement));
  }
}

}  // namespace gpumeter::store
