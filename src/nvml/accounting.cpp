#include "nvml/accounting.h"

#include <limits>
#include <vector>

#include "nvml/convert.h"
#include "nvml/maybe_ops.h"

namespace gpumeter::nvml {
namespace {

constexpr unsigned kNotAvailable32 = std::numeric_limits<unsigned>::max();
constexpr unsigned kPidSlack = 8;

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

Maybe<std::vector<AccountingRecord>> read_records(DeviceQuery& query) {
  const auto pids = read_pids(query);
  if (!pids) return std::unexpected(pids.error());
  std::vector<AccountingRecord> records;
  records.reserve(pids->size());
  for (const unsigned pid : *pids) {
    abi::AccountingStats stats{};
    const CallResult code = query.invoke(query.api().accounting_stats, pid, &stats);
    const auto ok = DeviceQuery::succeeded(code, CallScope::process);
    if (ok) {
      records.push_back(to_record(pid, stats));
    } else if (ok.error() != Unavailable::process_gone) {
      return std::unexpected(ok.error());
    }
  }
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

Maybe<Accounting> read_accounting(DeviceQuery& query) {
  const auto mode = then_maybe(query.get<unsigned>(query.api().accounting_mode), to_enabled);
  if (!mode) return std::unexpected(mode.error());
  Accounting accounting;
  accounting.enabled = *mode;
  // Current drivers answer the size also while the mode is off (580.159.04 on an H200).
  accounting.buffer_size = query.get<unsigned>(query.api().accounting_buffer_size);
  if (accounting.enabled) accounting.records = read_records(query);
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
