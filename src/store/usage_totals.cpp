// SPDX-License-Identifier: MIT
#include "store/usage_totals.h"

#include <algorithm>
#include <limits>
#include <string>

#include "store/sqlite.h"

namespace gpumeter::store {
namespace {

// The most recent `?1` users seen since `?2`, over every container.
constexpr const char* kUsers = R"sql(
SELECT user, SUM(gpu_seconds), SUM(sm_busy_seconds), SUM(sm_unknown_seconds),
       SUM(energy_joules), MAX(last_seen_us)
FROM usage_totals GROUP BY user HAVING MAX(last_seen_us) >= ?2 ORDER BY MAX(last_seen_us) DESC, user LIMIT ?1)sql";

// The most recent `?1` containers seen since `?2`, over every user.
constexpr const char* kContainers = R"sql(
SELECT container, SUM(gpu_seconds), SUM(sm_busy_seconds), SUM(sm_unknown_seconds),
       SUM(energy_joules), MAX(last_seen_us)
FROM usage_totals WHERE container <> '' GROUP BY container HAVING MAX(last_seen_us) >= ?2
ORDER BY MAX(last_seen_us) DESC, container LIMIT ?1)sql";

std::expected<std::vector<UsageTotal>, Error> read(Store& store, const char* sql, std::size_t limit,
                                                   TimeUs since_us) {
  auto statement = store.connection().cached(sql);
  if (!statement) return std::unexpected(std::move(statement.error()));
  sqlite::Statement& query = **statement;
  query.bind_all(static_cast<std::int64_t>(limit), since_us);
  std::vector<UsageTotal> rows;
  for (;;) {
    auto row = query.step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) break;
    rows.push_back({.key = query.text(0),
                    .gpu_seconds = query.real(1),
                    .sm_busy_seconds = query.real(2),
                    .sm_unknown_seconds = query.real(3),
                    .energy_joules = query.real(4),
                    .last_seen_us = query.int64(5)});
  }
  std::ranges::sort(rows, {}, &UsageTotal::key);
  return rows;
}

}  // namespace

std::expected<UsageTotals, Error> read_usage_totals(Store& store, TimeUs now_us,
                                                    const UsageTotalsBounds& bounds) {
  auto users = read(store, kUsers, bounds.users, std::numeric_limits<TimeUs>::min());
  if (!users) return std::unexpected(std::move(users.error()));
  auto containers = read(store, kContainers, bounds.containers, now_us - bounds.container_age_us);
  if (!containers) return std::unexpected(std::move(containers.error()));
  return UsageTotals{.users = std::move(*users), .containers = std::move(*containers)};
}

}  // namespace gpumeter::store
