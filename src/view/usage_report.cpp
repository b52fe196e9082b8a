// SPDX-License-Identifier: MIT
#include "view/usage_report.h"

#include <algorithm>
#include <set>
#include <utility>

#include "store/vgpu_use.h"

namespace gpumeter::view {
namespace {

std::expected<store::UsageRow, Error> total(const UsageSource& source, store::UsageQuery query) {
  query.group_by.clear();
  query.limit.reset();  // the whole window's one row, whatever page the rows are
  query.offset = 0;
  auto rows = source.usage(query);
  if (!rows) return std::unexpected(std::move(rows.error()));
  return rows->empty() ? store::UsageRow{} : rows->front();
}

std::expected<QuotaSummary, Error> summarise_quotas(const UsageSource& source,
                                                    const QuotaFile& quotas,
                                                    const UsageReport& report,
                                                    const store::UsageQuery& query) {
  auto uses = quota_use(source.usage, quotas,
                        {.since_us = report.since_us,
                         .until_us = report.until_us,
                         .user = query.user,
                         .host = query.host});
  if (!uses) return std::unexpected(std::move(uses.error()));
  QuotaSummary summary{.file = quotas.name};
  const std::optional<CalendarPeriod> period = report_period(report.group_by);
  for (const store::UsageRow& row : report.rows) {
    TimeUs from = report.since_us;
    TimeUs to = report.until_us;
    if (period && row.period_start_us) {
      from = *row.period_start_us;
      to = next_period_start(*period, from);
    }
    const QuotaUse* use = worst_use(*uses, row.user, from, to);
    summary.rows.push_back(use != nullptr ? std::optional<QuotaUse>(*use) : std::nullopt);
  }
  std::ranges::copy_if(*uses, std::back_inserter(summary.over),
                       [](const QuotaUse& use) { return use.over(); });
  return summary;
}

std::expected<std::optional<VgpuSummary>, Error> vgpu_summary(store::Store& store,
                                                              const store::UsageQuery& query) {
  if (query.user) return std::nullopt;
  auto rows = store::vm_usage(store, query.since_us, query.until_us);
  if (!rows) return std::unexpected(std::move(rows.error()));
  std::set<std::pair<std::string, std::string>> vms;
  std::set<std::uint32_t> gpus;
  VgpuSummary summary;
  for (const store::VmUsageRow& row : *rows) {
    if (query.host && row.host != *query.host) continue;
    vms.emplace(row.host, row.vm_id);
    gpus.insert(row.gpu_index);
    summary.vgpu_hours += row.vgpu_hours;
    summary.sm_busy_hours += row.sm_busy_hours;
  }
  if (vms.empty()) return std::nullopt;
  summary.vms = vms.size();
  summary.gpus.assign(gpus.begin(), gpus.end());
  return summary;
}

}  // namespace

std::optional<CalendarPeriod> report_period(const std::vector<store::GroupBy>& group_by) {
  for (const store::GroupBy by : group_by) {
    if (by == store::GroupBy::hour) return CalendarPeriod::hour;
    if (by == store::GroupBy::day) return CalendarPeriod::day;
    if (by == store::GroupBy::month) return CalendarPeriod::month;
  }
  return std::nullopt;
}

UsageSource store_usage_source(store::Store& store) {
  return {.name = store.path().string(),
          .usage = [&store](const store::UsageQuery& query) { return store::usage(store, query); },
          .store = &store};
}

std::expected<UsageReport, Error> build_usage_report(store::Store& store,
                                                     const store::UsageQuery& query,
                                                     const QuotaFile* quotas) {
  return build_usage_report(store_usage_source(store), query, quotas);
}

std::expected<UsageReport, Error> build_usage_report(const UsageSource& source,
                                                     const store::UsageQuery& query,
                                                     const QuotaFile* quotas) {
  UsageReport report{.database = source.name,
                     .per_process_figures = source.store != nullptr,
                     .since_us = query.since_us,
                     .until_us = query.until_us,
                     .group_by = query.group_by};
  auto rows = source.usage(query);
  if (!rows) return std::unexpected(std::move(rows.error()));
  report.rows = std::move(*rows);
  auto all = total(source, query);
  if (!all) return std::unexpected(std::move(all.error()));
  report.total = std::move(*all);
  if (source.store != nullptr) {
    auto vgpu = vgpu_summary(*source.store, query);
    if (!vgpu) return std::unexpected(std::move(vgpu.error()));
    report.vgpu = std::move(*vgpu);
  }
  if (quotas != nullptr) {
    auto summary = summarise_quotas(source, *quotas, report, query);
    if (!summary) return std::unexpected(std::move(summary.error()));
    report.quota = std::move(*summary);
  }
  return report;
}

}  // namespace gpumeter::view
