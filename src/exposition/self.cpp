// SPDX-License-Identifier: MIT
// gpumeter's own families: its version and how its sampler and HTTP server fare. Each carries
// the `host` label, as the GPU families do, so that one selector filters a machine's series.
#include <array>
#include <chrono>
#include <optional>
#include <string_view>

#include "exposition/parts.h"

#ifndef GPUMETER_VERSION
#error "GPUMETER_VERSION must be defined by the build"
#endif

namespace gpumeter::exposition {
namespace {

using enum MetricType;

struct SourceRow {
  std::string_view source;  // the label value
  SourceHealth SamplerStats::* health;
};

// The kinds of source calls the sampler counts (core/sampler.h, SamplerStats).
constexpr std::array kSources{
    SourceRow{"gpu", &SamplerStats::gpu_read},
    SourceRow{"gpu_process_utilization", &SamplerStats::utilization_drain},
    SourceRow{"host", &SamplerStats::host},
};

void append_sources(fmt::memory_buffer& out, const Labels& host, const SamplerStats& stats) {
  std::array<Labels, kSources.size()> labels;
  for (std::size_t i = 0; i < kSources.size(); ++i) {
    labels[i] = host.with("source", kSources[i].source);
  }
  Family calls(out, "gpumeter_source_calls_total", counter,
               "Calls the sampler made to a kind of source");
  for (std::size_t i = 0; i < kSources.size(); ++i) {
    calls.sample(labels[i], static_cast<double>((stats.*kSources[i].health).calls));
  }
  Family errors(out, "gpumeter_source_errors_total", counter,
                "Calls to a kind of source that failed (not counting unsupported values, lost "
                "GPUs or exited processes)");
  for (std::size_t i = 0; i < kSources.size(); ++i) {
    errors.sample(labels[i], static_cast<double>((stats.*kSources[i].health).failures));
  }
  Family last(out, "gpumeter_source_last_success_timestamp_seconds", gauge,
              "When a call to a kind of source last succeeded, seconds since the Unix epoch");
  for (std::size_t i = 0; i < kSources.size(); ++i) {
    const auto& success_us = (stats.*kSources[i].health).last_success_us;
    if (success_us) last.sample(labels[i], static_cast<double>(*success_us) / 1e6);
  }
}

}  // namespace

Labels host_labels(std::string_view hostname) {
  Labels labels;
  labels.add("host", hostname);
  return labels;
}

void append_build_info(fmt::memory_buffer& out, const Labels& host) {
  Family info(out, "gpumeter_build_info", gauge, "Always 1: gpumeter's version in a label");
  info.sample(host.with("version", GPUMETER_VERSION), 1);
}

void append_sampler_metrics(fmt::memory_buffer& out, const Labels& host,
                            const SamplerStats& stats) {
  Family(out, "gpumeter_sampler_rounds_total", counter, "Sampling rounds run")
      .sample(host, static_cast<double>(stats.rounds));
  Family duration(out, "gpumeter_sampler_round_duration_seconds", gauge,
                  "How long the last sampling round took");
  if (stats.rounds > 0) {
    duration.sample(host, std::chrono::duration<double>(stats.last_round_duration).count());
  }
  Family(out, "gpumeter_sampler_skipped_rounds_total", counter,
         "Scheduled rounds skipped because the one before overran its interval")
      .sample(host, static_cast<double>(stats.skipped_ticks));
  append_sources(out, host, stats);
  Family(out, "gpumeter_series_bytes", gauge,
         "Memory the sampler's in-memory series hold for samples")
      .sample(host, static_cast<double>(stats.series_bytes));
}

void append_self_metrics(fmt::memory_buffer& out, const Labels& host, const SelfUsage& usage) {
  struct Row {
    std::string_view name;
    MetricType type;
    std::string_view help;
    std::optional<double> value;
  };
  const auto number = [](const std::optional<std::uint64_t>& value) {
    return value ? std::optional(static_cast<double>(*value)) : std::nullopt;
  };
  const std::array rows{
      Row{"process_cpu_seconds_total", counter, "User and system CPU time spent, in seconds",
          usage.cpu_seconds},
      Row{"process_resident_memory_bytes", gauge, "Resident memory size in bytes",
          number(usage.resident_bytes)},
      Row{"process_virtual_memory_bytes", gauge, "Virtual memory size in bytes",
          number(usage.virtual_bytes)},
      Row{"process_start_time_seconds", gauge,
          "Start time of the process since the Unix epoch in seconds", usage.start_time_s},
      Row{"process_open_fds", gauge, "Number of open file descriptors",
          number(usage.open_descriptors)},
      Row{"process_max_fds", gauge, "Maximum number of open file descriptors",
          number(usage.max_descriptors)},
      Row{"gpumeter_heap_in_use_bytes", gauge,
          "Heap memory allocated and not freed, as the allocator counts it (resident or not)",
          number(usage.heap_in_use_bytes)},
      Row{"gpumeter_heap_free_bytes", gauge,
          "Heap memory freed and kept in the allocator's arenas (the periodic trim returns its "
          "whole pages to the system, so much of it need not be resident)",
          number(usage.heap_free_bytes)},
      Row{"gpumeter_sqlite_memory_bytes", gauge,
          "Memory SQLite holds for the history database: page caches, schemas, statements",
          number(usage.sqlite_memory_bytes)},
  };
  for (const Row& row : rows) {
    if (row.value) Family(out, row.name, row.type, row.help).sample(host, *row.value);
  }
}

void append_http_metrics(fmt::memory_buffer& out, const Labels& host,
                         const std::map<int, std::uint64_t>& by_status) {
  Family requests(out, "gpumeter_http_requests_total", counter,
                  "HTTP responses the server sent, by status code");
  for (const auto& [status, count] : by_status) {
    requests.sample(host.with("code", std::to_string(status)), static_cast<double>(count));
  }
}

}  // namespace gpumeter::exposition
