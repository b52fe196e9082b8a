// SPDX-License-Identifier: MIT
// gpumeter_user_*_total and gpumeter_container_*_total: the history's running totals
// (core/usage_totals.h) as counters, so that Prometheus answers "who used how many GPU-hours
// this month" with increase() over any range, across machines.
#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "exposition/parts.h"

namespace gpumeter::exposition {
namespace {

struct Figure {
  std::string_view suffix;  // after "gpumeter_user_" or "gpumeter_container_"
  std::string_view help;    // after "Since the history began: "
  double UsageTotal::* value;
  bool only_when_nonzero = false;  // a family most machines never need
};

constexpr std::array kFigures{
    Figure{"gpu_seconds_total", "seconds that processes held memory on a GPU, summed over GPUs",
           &UsageTotal::gpu_seconds},
    Figure{"sm_busy_seconds_total",
           "SM busy seconds of the processes (SM ratio times held seconds), summed over GPUs",
           &UsageTotal::sm_busy_seconds},
    Figure{"sm_unknown_seconds_total",
           "held seconds whose SM use the driver did not report (GPUs in MIG mode)",
           &UsageTotal::sm_unknown_seconds, true},
    Figure{"energy_joules_total",
           "the processes' share of their GPUs' energy, split by SM use, in joules",
           &UsageTotal::energy_joules},
};

void append_totals(fmt::memory_buffer& out, std::string_view kind, std::string_view label,
                   const Labels& host, const std::vector<UsageTotal>& rows) {
  std::vector<Labels> labels;
  labels.reserve(rows.size());
  for (const UsageTotal& row : rows) labels.push_back(host.with(label, row.key));
  for (const Figure& figure : kFigures) {
    if (figure.only_when_nonzero &&
        std::ranges::none_of(rows, [&](const UsageTotal& r) { return r.*figure.value > 0; }))
      continue;
    // Family keeps views of its name and help: both live until it has written its samples.
    const std::string name = fmt::format("gpumeter_{}_{}", kind, figure.suffix);
    const std::string help = fmt::format("Since the history began, per {}: {}", label, figure.help);
    Family family(out, name, MetricType::counter, help);
    for (std::size_t i = 0; i < rows.size(); ++i) family.sample(labels[i], rows[i].*figure.value);
  }
}

}  // namespace

void append_usage_totals(fmt::memory_buffer& out, const Labels& host, const UsageTotals& totals) {
  if (!totals.users.empty()) append_totals(out, "user", "user", host, totals.users);
  if (!totals.containers.empty())
    append_totals(out, "container", "container", host, totals.containers);
}

}  // namespace gpumeter::exposition
