// SPDX-License-Identifier: MIT
// The parts of render_metrics (exposition/metrics.h), one group of families each. Internal to
// src/exposition.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "core/model.h"
#include "core/sampler.h"
#include "core/self_usage.h"
#include "core/usage_totals.h"
#include "exposition/metrics.h"
#include "exposition/prometheus_text.h"
#include "view/quota.h"

namespace gpumeter::exposition {

// The labels of each GPU in snapshot order: host, gpu (index), uuid, name. An identity field
// that could not be read is an empty value.
std::vector<Labels> gpu_labels(const Snapshot& snapshot);

// gpumeter_gpu_*: `labels` as gpu_labels() gives them.
void append_gpu_metrics(fmt::memory_buffer& out, const Snapshot& snapshot,
                        const std::vector<Labels>& labels);

// gpumeter_board_*: the rails and temperature sensors of the GPUs on embedded boards.
void append_board_metrics(fmt::memory_buffer& out, const Snapshot& snapshot,
                          const std::vector<Labels>& labels);

// gpumeter_gpu_accounting_*: accounting mode and records per GPU (metrics_accounting.cpp).
void append_accounting_metrics(fmt::memory_buffer& out, const Snapshot& snapshot,
                               const std::vector<Labels>& labels);
// gpumeter_mig_*: memory and processes of every MIG device (metrics_mig.cpp).
void append_mig_metrics(fmt::memory_buffer& out, const Snapshot& snapshot);

// gpumeter_process_* (as `limit` allows) and gpumeter_user_*.
void append_process_metrics(fmt::memory_buffer& out, const Snapshot& snapshot,
                            const std::vector<Labels>& labels, const ProcessActivity& activity,
                            const ProcessLimit& limit);

// gpumeter_vgpu_*: one sample per vGPU instance of the GPUs that run as vGPU hosts.
void append_vgpu_metrics(fmt::memory_buffer& out, const Snapshot& snapshot);

// The label set of gpumeter's own families: host="<hostname>".
Labels host_labels(std::string_view hostname);

// gpumeter_build_info; `host` as host_labels() gives it, as below.
void append_build_info(fmt::memory_buffer& out, const Labels& host);

// gpumeter_sampler_*, gpumeter_source_*, gpumeter_series_bytes.
void append_sampler_metrics(fmt::memory_buffer& out, const Labels& host, const SamplerStats& stats);

// The process's own cost under Prometheus' conventional names (process_cpu_seconds_total,
// process_resident_memory_bytes, ...) and gpumeter_heap_*, gpumeter_sqlite_memory_bytes; a
// figure the usage lacks writes no family.
void append_self_metrics(fmt::memory_buffer& out, const Labels& host, const SelfUsage& usage);

// gpumeter_user_*_total and gpumeter_container_*_total: the history's running totals, one series
// per user and per container in `totals` (none for an empty list).
void append_usage_totals(fmt::memory_buffer& out, const Labels& host, const UsageTotals& totals);

// gpumeter_quota_gpu_hours per user line of the file, gpumeter_quota_default_gpu_hours for its
// default line.
void append_quota_metrics(fmt::memory_buffer& out, const Labels& host,
                          const view::QuotaFile& quotas);

// gpumeter_http_requests_total: responses sent, by status code.
void append_http_metrics(fmt::memory_buffer& out, const Labels& host,
                         const std::map<int, std::uint64_t>& by_status);

}  // namespace gpumeter::exposition
