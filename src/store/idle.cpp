// SPDX-License-Identifier: MIT
#include "store/idle.h"

#include <algorithm>
#include <map>

#include "store/buckets.h"
#include "store/sqlite.h"

namespace gpumeter::store {
namespace {

// Only idle minutes are read; a missing minute ends a spell. A minute whose SM use is unknown
// (even in part: a GPU in MIG mode) is not idle, it is unknown.
constexpr const char* kIdleMinutesSql = R"sql(
SELECT m.process_id, m.bucket_us, m.held_seconds, m.sm_busy_seconds, m.peak_memory_bytes
FROM process_minutes m JOIN ledger l ON l.id = m.process_id
WHERE m.bucket_us >= ?1 AND m.bucket_us < ?2 AND m.held_seconds > 0 AND m.sm_unknown_seconds = 0
  AND m.sm_busy_seconds <= m.held_seconds * ?3 / 100.0 AND (?4 IS NULL OR l.user = ?4)
ORDER BY m.process_id, m.bucket_us)sql";

struct Minute {
  std::int64_t process_id = 0;
  TimeUs bucket_us = 0;
  double held_seconds = 0;
  double sm_busy_seconds = 0;
  std::uint64_t peak_memory_bytes = 0;
};

// Spells keyed by ledger id, before the ledger rows are looked up.
using Spells = std::vector<std::pair<std::int64_t, IdleSpell>>;

void extend(Spells& spells, const Minute& minute) {
  const bool continues = !spells.empty() && spells.back().first == minute.process_id &&
                         spells.back().second.end_us == minute.bucket_us;
  if (!continues) {
    spells.push_back(
        {minute.process_id, IdleSpell{.begin_us = minute.bucket_us, .end_us = minute.bucket_us}});
  }
  IdleSpell& spell = spells.back().second;
  spell.end_us = minute.bucket_us + kMinuteUs;
  spell.held_seconds += minute.held_seconds;
  spell.sm_busy_seconds += minute.sm_busy_seconds;
  spell.peak_memory_bytes = std::max(spell.peak_memory_bytes, minute.peak_memory_bytes);
}

std::expected<Spells, Error> find_spells(Store& store, const IdleQuery& query) {
  auto statement = store.connection().prepare(kIdleMinutesSql);
  if (!statement) return std::unexpected(std::move(statement.error()));
  statement->bind_all(bucket_start(query.since_us, kMinuteUs), query.until_us, query.max_sm_percent,
                      query.user);
  Spells spells;
  for (;;) {
    auto row = statement->step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) break;
    extend(spells, Minute{statement->int64(0), statement->int64(1), statement->real(2),
                          statement->real(3), static_cast<std::uint64_t>(statement->int64(4))});
  }
  std::erase_if(spells, [&](const auto& spell) {
    return spell.second.end_us - spell.second.begin_us < query.min_duration_us;
  });
  return spells;
}

// The ledger rows of the spells' processes, found by the window they were seen in.
std::expected<std::map<std::int64_t, LedgerRow>, Error> ledger_rows(Store& store,
                                                                    const Spells& spells) {
  std::map<std::int64_t, LedgerRow> rows;
  if (spells.empty()) return rows;
  TimeUs since = spells.front().second.begin_us;
  TimeUs until = spells.front().second.end_us;
  for (const auto& [id, spell] : spells) {
    since = std::min(since, spell.begin_us);
    until = std::max(until, spell.end_us);
  }
  auto all = ledger(store, LedgerQuery{.since_us = since, .until_us = until});
  if (!all) return std::unexpected(std::move(all.error()));
  for (LedgerRow& row : *all) {
    const std::int64_t id = row.id;
    rows.emplace(id, std::move(row));
  }
  return rows;
}

}  // namespace

std::expected<std::vector<IdleSpell>, Error> idle_holders(Store& store, const IdleQuery& query) {
  if (query.until_us <= query.since_us || query.max_sm_percent < 0) {
    return std::unexpected(Error{ErrorCode::invalid_input,
                                 "idle holders: the window is empty or the threshold negative"});
  }
  auto spells = find_spells(store, query);
  if (!spells) return std::unexpected(std::move(spells.error()));
  auto rows = ledger_rows(store, *spells);
  if (!rows) return std::unexpected(std::move(rows.error()));
  std::vector<IdleSpell> result;
  for (auto& [id, spell] : *spells) {
    if (const auto row = rows->find(id); row != rows->end()) spell.process = row->second;
    result.push_back(std::move(spell));
  }
  std::ranges::stable_sort(result, [](const IdleSpell& a, const IdleSpell& b) {
    return a.end_us - a.begin_us > b.end_us - b.begin_us;
  });
  return result;
}

}  // namespace gpumeter::store
