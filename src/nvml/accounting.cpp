// SPDX-License-Identifier: MIT
#include "nvml/accounting.h"

#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nvml/convert.h"
#include "nvml/maybe_ops.h"

namespace gpumeter::nvml {
namespace {

constexpr unsigned kNotAvailable32 = std::numeric_limits<unsigned>::max();
constexpr unsigned kPidSlack = 8;
// Records kept when the driver does not say its buffer's size (current drivers hold 4000).
constexpr std::size_t kMaxKept = 4000;

Maybe<double> percent(unsigned value) {
  if (value == kNotAvailable32) return std::unexpected(Unavailable::not_supported);
  return static_cast<double>(value);
}

AccountingRecord to_record(unsigned pid, const abi::AccountingStats& stats) {
  AccountingRecord record;
  record.pid = pid;
  record.gpu_util_percent = percent(stats.gpu_utilization);
  record.memory_util_percent = percent(stats.memory_utilization);
  record.max_memory_bytes = optional_bytes(stats.max_memory_usage);
  record.running = stats.is_running != 0;
  // The driver writes 0 while the process runs: no duration yet, not a zero one.
  if (!record.running) record.time_ms = stats.time;
  record.start_time_us = static_cast<std::int64_t>(stats.start_time);
  return record;
}

// The sizing protocol: count 0 first (SUCCESS: none; INSUFFICIENT_SIZE: the need), then room
// for the need and some slack, again if the list grew meanwhile.
Maybe<std::vector<unsigned>> read_pids(DeviceQuery& query) {
  unsigned count = 0;
  std::vector<unsigned> pids;
  for (int attempt = 0; attempt < kAccountingPidAttempts; ++attempt) {
    const CallResult code =
        query.invoke(query.api().accounting_pids, &count, pids.empty() ? nullptr : pids.data());
    if (code && *code == abi::kSuccess) {
      pids.resize(pids.empty() ? 0 : count);
      return pids;
    }
    if (!code || *code != abi::kErrorInsufficientSize) {
      return std::unexpected(code ? to_unavailable(*code) : code.error());
    }
    pids.assign(count + kPidSlack, 0);
    count = static_cast<unsigned>(pids.size());
  }
  return std::unexpected(Unavailable::error);
}

// A pid's record, nothing when the pid left the buffer since the list was read, or the
// reason the driver gave for failing.
using Answer = std::expected<std::optional<AccountingRecord>, Unavailable>;

Answer ask(DeviceQuery& query, unsigned pid) {
  abi::AccountingStats stats{};
  const CallResult code = query.invoke(query.api().accounting_stats, pid, &stats);
  const auto ok = DeviceQuery::succeeded(code, CallScope::process);
  if (ok) return to_record(pid, stats);
  if (ok.error() == Unavailable::process_gone) return std::nullopt;
  return std::unexpected(ok.error());
}

// Every record asked for, one call per pid listed (the uncached way).
Maybe<std::vector<AccountingRecord>> read_every_record(DeviceQuery& query,
                                                       const std::vector<unsigned>& pids) {
  std::vector<AccountingRecord> records;
  records.reserve(pids.size());
  for (const unsigned pid : pids) {
    const Answer answer = ask(query, pid);
    if (!answer) return std::unexpected(answer.error());
    const std::optional<AccountingRecord>& record = *answer;
    if (record.has_value()) records.push_back(*record);
  }
  return records;
}

using Answers = std::unordered_map<unsigned, std::optional<AccountingRecord>>;

// Asks about each pid whose kept record cannot be trusted: listed since the last read, not
// kept (running, or never read), or in this read's slice of rechecks. Once per pid, oldest
// first.
Maybe<Answers> ask_changed(DeviceQuery& query, AccountingCache& cache,
                           const std::vector<unsigned>& pids) {
  const std::size_t fresh_from = appended_from(cache.listed, pids);
  const RecheckSlice recheck = recheck_slice(cache, fresh_from);
  Answers answers;
  for (std::size_t i = 0; i < pids.size(); ++i) {
    const unsigned pid = pids[i];
    if (answers.contains(pid)) continue;
    const bool trusted = i < fresh_from && !recheck.contains(i) && cache.exited.contains(pid);
    if (trusted) continue;
    Answer answer = ask(query, pid);
    if (!answer) return std::unexpected(answer.error());
    answers.emplace(pid, std::move(*answer));
  }
  return answers;
}

// Keeps the exited records of the pids listed now, at most `capacity` of them.
void keep_exited(AccountingCache& cache, const std::vector<unsigned>& pids, const Answers& answers,
                 std::size_t capacity) {
  std::unordered_map<unsigned, AccountingRecord> exited;
  for (const unsigned pid : pids) {
    if (exited.size() >= capacity) break;
    if (const auto answer = answers.find(pid); answer != answers.end()) {
      const std::optional<AccountingRecord>& record = answer->second;
      if (record.has_value() && !record->running) exited.emplace(pid, *record);
    } else if (const auto kept = cache.exited.find(pid); kept != cache.exited.end()) {
      exited.emplace(pid, kept->second);
    }
  }
  cache.exited = std::move(exited);
  cache.listed = pids;
}

// The records in the order listed: what the driver answered now, else what was kept.
std::vector<AccountingRecord> assemble(const AccountingCache& cache,
                                       const std::vector<unsigned>& pids, const Answers& answers) {
  std::vector<AccountingRecord> records;
  records.reserve(pids.size());
  for (const unsigned pid : pids) {
    if (const auto answer = answers.find(pid); answer != answers.end()) {
      const std::optional<AccountingRecord>& record = answer->second;
      if (record.has_value()) records.push_back(*record);
    } else {
      records.push_back(cache.exited.at(pid));
    }
  }
  return records;
}

Maybe<std::vector<AccountingRecord>> read_records(DeviceQuery& query, AccountingCache* cache,
                                                  std::size_t capacity) {
  const auto pids = read_pids(query);
  if (!pids) {
    if (cache != nullptr) cache->reset();
    return std::unexpected(pids.error());
  }
  if (cache == nullptr) return read_every_record(query, *pids);
  const auto answers = ask_changed(query, *cache, *pids);
  if (!answers) {
    cache->reset();
    return std::unexpected(answers.error());
  }
  auto records = assemble(*cache, *pids, *answers);
  keep_exited(*cache, *pids, *answers, capacity);
  return records;
}

bool mig_mode_enabled(DeviceQuery& query) {
  unsigned current = 0;
  unsigned pending = 0;
  return query.call(query.api().mig_mode, &current, &pending) && current == abi::kMigEnable;
}

std::expected<void, AccountingRefusal> refusal_for(DeviceQuery& query, const CallResult& code) {
  if (code && *code == abi::kSuccess) return {};
  if (code && *code == abi::kErrorNoPermission)
    return std::unexpected(AccountingRefusal::needs_root);
  if (query.lost()) return std::unexpected(AccountingRefusal::gpu_lost);
  if (mig_mode_enabled(query)) return std::unexpected(AccountingRefusal::mig_enabled);
  const Unavailable reason = code ? to_unavailable(*code) : code.error();
  if (reason == Unavailable::not_supported)
    return std::unexpected(AccountingRefusal::not_supported);
  if (reason == Unavailable::gpu_lost) return std::unexpected(AccountingRefusal::gpu_lost);
  return std::unexpected(AccountingRefusal::error);
}

}  // namespace

Maybe<Accounting> read_accounting(DeviceQuery& query, AccountingCache* cache) {
  const auto mode = then_maybe(query.get<unsigned>(query.api().accounting_mode), to_enabled);
  if (!mode) return std::unexpected(mode.error());
  Accounting accounting;
  accounting.enabled = *mode;
  // Current drivers answer the size also while the mode is off (580.159.04 on an H200).
  accounting.buffer_size = query.get<unsigned>(query.api().accounting_buffer_size);
  if (!accounting.enabled) {
    if (cache != nullptr) cache->reset();  // disabling drops every record
    return accounting;
  }
  // A driver that lists more pids than its buffer holds gets no more kept than that.
  const std::size_t capacity = accounting.buffer_size.value_or(kMaxKept);
  accounting.records = read_records(query, cache, capacity);
  return accounting;
}

std::expected<void, AccountingRefusal> set_accounting_mode(DeviceQuery& query, bool enabled) {
  const auto mode = enabled ? abi::kFeatureEnabled : abi::kFeatureDisabled;
  return refusal_for(query, query.invoke(query.api().set_accounting_mode, mode));
}

std::expected<void, AccountingRefusal> clear_accounting(DeviceQuery& query) {
  return refusal_for(query, query.invoke(query.api().clear_accounting_pids));
}

}  // namespace gpumeter::nvml
