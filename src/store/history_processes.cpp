// SPDX-License-Identifier: MIT
// Reading the ledger, per-process detail and task results back.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "store/history.h"
#include "store/meta.h"
#include "store/sqlite.h"

namespace gpumeter::store {
namespace {

constexpr const char* kLedgerSql = R"sql(
SELECT l.id, h.name, l.pid, l.start_time_us, d.uuid, l.gpu_index, l.uid, l.user, l.command,
       l.container_runtime, l.container_id, l.first_seen_us, l.last_seen_us, l.gpu_seconds,
       l.sm_busy_seconds, l.peak_memory_bytes, l.energy_joules, l.final, l.sm_unknown_seconds,
       l.sm_unknown_reason
FROM ledger l JOIN hosts h ON h.id = l.host_id JOIN devices d ON d.id = l.device_id
WHERE l.last_seen_us >= ?1 AND l.first_seen_us < ?2 AND (?3 IS NULL OR l.user = ?3)
ORDER BY l.first_seen_us, l.id)sql";

constexpr const char* kTasksSql = R"sql(
SELECT h.name, t.task_id, t.name, t.labels, t.pid, t.process_start_time_us, t.uid, t.user,
       t.begin_us, t.end_us, t.abandoned, t.usage_error, t.cpu_user_seconds,
       t.cpu_system_seconds, t.peak_rss_bytes, t.host_complete, t.gpus
FROM tasks t JOIN hosts h ON h.id = t.host_id
WHERE t.end_us >= ?1 AND t.end_us < ?2 AND (?3 IS NULL OR t.user = ?3)
ORDER BY t.end_us, t.id)sql";

ProcessIdentity identity(const sqlite::Statement& row) {
  ProcessIdentity process{.pid = static_cast<Pid>(row.int64(2)),
                          .start_time_us = row.int64(3),
                          .gpu_uuid = row.text(4),
                          .gpu_index = static_cast<std::uint32_t>(row.int64(5))};
  process.uid = row.optional_as<std::uint32_t>(6);
  process.user = row.optional_text(7);
  process.command = row.optional_text(8);
  if (!row.is_null(9)) process.container = Container{row.text(9), row.text(10)};
  return process;
}

LedgerRow ledger_row(const sqlite::Statement& row) {
  return LedgerRow{.id = row.int64(0),
                   .host = row.text(1),
                   .process = identity(row),
                   .first_seen_us = row.int64(11),
                   .last_seen_us = row.int64(12),
                   .gpu_seconds = row.real(13),
                   .sm_busy_seconds = row.real(14),
                   .peak_memory_bytes = static_cast<std::uint64_t>(row.int64(15)),
                   .energy_joules = row.real(16),
                   .final = row.int64(17) != 0,
                   .sm_unknown_seconds = row.real(18),
                   .sm_unknown_reason = row.optional_text(19)};
}

std::expected<StoredTask, Error> task_row(const sqlite::Statement& row) {
  auto gpus = parse_gpus_json(row.text(16));
  if (!gpus) return std::unexpected(std::move(gpus.error()));
  const nlohmann::json labels = nlohmann::json::parse(row.text(3), nullptr, false);
  TaskRecord task{.id = static_cast<std::uint64_t>(row.int64(1)), .name = row.text(2)};
  if (labels.is_object()) {
    for (const auto& [key, value] : labels.items()) {
      if (value.is_string()) task.labels.emplace(key, value.get<std::string>());
    }
  }
  task.owner = ProcessKey{static_cast<Pid>(row.int64(4)), row.int64(5)};
  task.uid = row.optional_as<std::uint32_t>(6);
  task.user = row.optional_text(7);
  task.begin_us = row.int64(8);
  task.end_us = row.int64(9);
  task.abandoned = row.int64(10) != 0;
  task.usage_error = row.optional_text(11);
  task.cpu_user_seconds = row.optional_real(12);
  task.cpu_system_seconds = row.optional_real(13);
  task.peak_rss_bytes = row.optional_as<std::uint64_t>(14);
  task.host_complete = row.int64(15) != 0;
  task.gpus = std::move(*gpus);
  return StoredTask{row.text(0), std::move(task)};
}

// Runs `statement` and turns each row into a T with `make`.
template <class T, class Make>
std::expected<std::vector<T>, Error> collect(sqlite::Statement& statement, Make make) {
  std::vector<T> rows;
  for (;;) {
    auto row = statement.step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) return rows;
    rows.push_back(make(statement));
  }
}

}  // namespace

std::expected<std::vector<LedgerRow>, Error> ledger(Store& store, const LedgerQuery& query) {
  auto statement = store.connection().prepare(kLedgerSql);
  if (!statement) return std::unexpected(std::move(statement.error()));
  statement->bind_all(query.since_us, query.until_us, query.user);
  return collect<LedgerRow>(*statement, ledger_row);
}

std::expected<std::vector<ProcessDetailRow>, Error> process_detail(Store& store,
                                                                   Resolution resolution,
                                                                   TimeUs since_us,
                                                                   TimeUs until_us) {
  if (resolution == Resolution::samples) {
    return std::unexpected(
        Error{ErrorCode::invalid_input, "per-process detail is kept per minute and per hour only"});
  }
  auto statement = store.connection().prepare(fmt::format(
      "SELECT process_id, bucket_us, held_seconds, sm_busy_seconds, peak_memory_bytes, "
      "energy_joules, sm_unknown_seconds FROM {} WHERE bucket_us >= ?1 AND bucket_us < ?2 "
      "ORDER BY bucket_us, process_id",
      resolution == Resolution::minutes ? "process_minutes" : "process_hours"));
  if (!statement) return std::unexpected(std::move(statement.error()));
  statement->bind_all(since_us, until_us);
  return collect<ProcessDetailRow>(*statement, [](const sqlite::Statement& row) {
    return ProcessDetailRow{.ledger_id = row.int64(0),
                            .bucket_us = row.int64(1),
                            .held_seconds = row.real(2),
                            .sm_busy_seconds = row.real(3),
                            .peak_memory_bytes = static_cast<std::uint64_t>(row.int64(4)),
                            .energy_joules = row.real(5),
                            .sm_unknown_seconds = row.real(6)};
  });
}

std::expected<std::vector<StoredTask>, Error> tasks(Store& store, const TaskQuery& query) {
  auto statement = store.connection().prepare(kTasksSql);
  if (!statement) return std::unexpected(std::move(statement.error()));
  statement->bind_all(query.since_us, query.until_us, query.user);
  std::vector<StoredTask> rows;
  for (;;) {
    auto row = statement->step();
    if (!row) return std::unexpected(std::move(row.error()));
    if (!*row) return rows;
    auto task = task_row(*statement);
    if (!task) return std::unexpected(std::move(task.error()));
    rows.push_back(std::move(*task));
  }
}

std::expected<std::optional<TimeUs>, Error> recorded_until(Store& store) {
  if (store.host_id() == 0) return std::nullopt;
  return meta::read(store.connection(), meta::recorded_until_key(store.host_id()));
}

}  // namespace gpumeter::store
