// SPDX-License-Identifier: MIT
#include "cli/report_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "core/duration.h"
#include "view/group_by.h"
#include "view/report_time.h"

namespace gpumeter::cli {
namespace {

using store::GroupBy;

constexpr std::string_view kTimeForms =
    "a date (2026-10-01), a local time ('2026-10-01 12:00'), a month (2026-10), today, now, or "
    "a duration before now (30d, 12h, 90m)";

CLI::Validator time_validator() {
  return CLI::Validator(
      [](const std::string& text) {
        return view::parse_report_time(text, 0) ? std::string{}
                                                : fmt::format("\"{}\" is not {}", text, kTimeForms);
      },
      "TIME");
}

// "user,month" into its names; empty names are kept, for parse_group_by to refuse.
std::vector<std::string> split_names(std::span<const std::string> values) {
  std::vector<std::string> names;
  for (const std::string& value : values) {
    std::size_t from = 0;
    for (std::size_t comma = value.find(','); comma != std::string::npos;
         comma = value.find(',', from)) {
      names.push_back(value.substr(from, comma - from));
      from = comma + 1;
    }
    names.push_back(value.substr(from));
  }
  return names;
}

// "--by vm" groups the vGPU history instead of the process ledger; it stands alone.
bool is_vm_grouping(const std::vector<std::string>& names) {
  return names.size() == 1 && names.front() == "vm";
}

CLI::Validator group_validator() {
  return CLI::Validator(
      [](const std::string& text) {
        const std::vector<std::string> names = split_names(std::span(&text, 1));
        if (is_vm_grouping(names)) return std::string{};
        if (std::ranges::count(names, "vm") > 0)
          return std::string("vm stands alone (per-VM vGPU use has no other grouping)");
        const auto group = view::parse_group_by(names);
        if (group) return std::string{};
        // CLI11 names the option itself.
        constexpr std::string_view kPrefix = "--by: ";
        const std::string& message = group.error().message;
        return message.starts_with(kPrefix) ? message.substr(kPrefix.size()) : message;
      },
      "GROUPS");
}

std::expected<TimeUs, Error> resolve_time(std::string_view option, const std::string& text,
                                          TimeUs fallback, TimeUs now_us) {
  if (text.empty()) return fallback;
  const auto time = view::parse_report_time(text, now_us);
  if (!time)
    return std::unexpected(
        invalid_input(fmt::format("{}: \"{}\" is not {}", option, text, kTimeForms)));
  return *time;
}

// The counters are per user and per container, summed over GPUs and processes: a fleet report
// groups by host, user or container (not user and container together), and a calendar period.
std::expected<void, Error> check_prometheus(const ReportOptions& options,
                                            const ReportSettings& settings) {
  if (options.prometheus.empty()) return {};
  if (!options.database.empty() || options.idle || !options.plot.empty() || settings.by_vm) {
    return std::unexpected(invalid_input(
        "--prometheus reports the fleet from its counters: --database, --idle, --plot and "
        "--by vm need a machine's history"));
  }
  const auto& group = settings.query.group_by;
  const auto has = [&](GroupBy by) { return std::ranges::count(group, by) > 0; };
  if (has(GroupBy::gpu) || has(GroupBy::process)) {
    return std::unexpected(invalid_input(
        "--prometheus: the counters are per user and per container, not per GPU or process "
        "(--by host, user, container, hour, day, month)"));
  }
  if (has(GroupBy::user) && has(GroupBy::container)) {
    return std::unexpected(invalid_input(
        "--prometheus: the counters are per user and per container, not both at once (--by "
        "user or --by container)"));
  }
  if (!options.user.empty() && has(GroupBy::container)) {
    return std::unexpected(
        invalid_input("--prometheus: --user does not apply to --by container (the container "
                      "counters are over every user)"));
  }
  return {};
}

std::expected<void, Error> check_combinations(const ReportOptions& options,
                                              const ReportSettings& settings) {
  const auto& group = settings.query.group_by;
  if (options.idle && (!options.by.empty() || !options.quota.empty() || options.check ||
                       options.chart || !options.plot.empty())) {
    return std::unexpected(invalid_input(
        "--idle lists idle processes: --by, --quota, --check, --chart and --plot do not "
        "apply to it"));
  }
  if (!options.quota.empty() && std::ranges::count(group, GroupBy::user) == 0)
    return std::unexpected(
        invalid_input("--quota compares users with their quotas: --by must include user"));
  if (options.check && options.quota.empty())
    return std::unexpected(invalid_input("--check needs --quota FILE"));
  if (options.chart && settings.format != ReportFormat::table)
    return std::unexpected(
        invalid_input("--chart draws in the terminal: it does not combine with --format "
                      "csv or json"));
  if (options.max_sm_percent < 0 || options.max_sm_percent > 100)
    return std::unexpected(invalid_input("--max-sm: expected a percentage from 0 to 100"));
  if (!options.prometheus_token_file.empty() && options.prometheus.empty())
    return std::unexpected(invalid_input("--prometheus-token-file needs --prometheus URL"));
  return check_prometheus(options, settings);
}

std::expected<store::IdleQuery, Error> idle_query(const ReportOptions& options,
                                                  const store::UsageQuery& query) {
  const auto threshold = parse_whole_seconds(options.idle_for);
  if (!threshold) {
    return std::unexpected(invalid_input(
        fmt::format("--for: \"{}\" is not a duration such as 30m, 2h or 1d", options.idle_for)));
  }
  return store::IdleQuery{
      .since_us = query.since_us,
      .until_us = query.until_us,
      .max_sm_percent = options.max_sm_percent,
      .min_duration_us = std::chrono::duration_cast<std::chrono::microseconds>(*threshold).count(),
      .user = query.user};
}

ReportFormat parse_format(std::string_view name) {
  if (name == "csv") return ReportFormat::csv;
  if (name == "json") return ReportFormat::json;
  return ReportFormat::table;
}

template <class T>
std::optional<T> unless_empty(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return T(text);
}

}  // namespace

void add_report_options(CLI::App& report, ReportOptions& options) {
  report
      .add_option("--database", options.database,
                  "The history to read (default: see docs/report.md)")
      ->option_text("PATH");
  report
      .add_option("--by", options.by,
                  "Group by user, gpu, process, container, host, and one of hour, day, month; "
                  "comma-separated (default: user); or vm alone: vGPU use per VM")
      ->check(group_validator())
      ->option_text("GROUPS");
  report
      .add_option("--since", options.since,
                  "Start of the period (default: the start of this month)")
      ->check(time_validator())
      ->option_text("TIME");
  report.add_option("--until", options.until, "End of the period, excluded (default: now)")
      ->check(time_validator())
      ->option_text("TIME");
  report
      .add_option("--format", options.format,
                  "table (default), csv or json (schemas/report.schema.json)")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->option_text("FORMAT");
  report.add_option("--user", options.user, "Only this user's processes")->option_text("NAME");
  report.add_option("--host", options.host, "Only this host's processes")->option_text("NAME");
  report.add_option("--quota", options.quota, "Compare users with their quotas in FILE")
      ->option_text("FILE");
  report.add_flag("--check", options.check,
                  "With --quota: print only who is over quota; exit 1 if anyone is");
  report.add_flag("--idle", options.idle,
                  "List processes that held GPU memory while leaving the GPU idle");
  report
      .add_option("--for", options.idle_for, "With --idle: idle at least this long (default 30m)")
      ->option_text("DURATION");
  report
      .add_option("--max-sm", options.max_sm_percent,
                  "With --idle: the most SM use, in percent, that counts as idle (default 1)")
      ->option_text("PERCENT");
  report.add_flag("--chart", options.chart, "Draw bar charts in the terminal instead of a table");
  report.add_option("--plot", options.plot, "Also write an SVG plot of use by user over time")
      ->option_text("FILE.svg");
  report
      .add_option("--prometheus", options.prometheus,
                  "Report the whole fleet from the ledger counters this Prometheus server "
                  "scraped (docs/report.md)")
      ->option_text("URL");
  report
      .add_option("--prometheus-token-file", options.prometheus_token_file,
                  "With --prometheus: send the bearer token in FILE")
      ->option_text("FILE");
}

std::expected<ReportSettings, Error> resolve_report_options(const ReportOptions& options,
                                                            TimeUs now_us) {
  ReportSettings settings{
      .database = unless_empty<std::filesystem::path>(options.database),
      .format = parse_format(options.format),
      .quota_file = unless_empty<std::filesystem::path>(options.quota),
      .check = options.check,
      .idle = options.idle,
      .chart = options.chart,
      .plot = unless_empty<std::filesystem::path>(options.plot),
      .prometheus = unless_empty<std::string>(options.prometheus),
      .prometheus_token_file = unless_empty<std::filesystem::path>(options.prometheus_token_file)};
  std::vector<std::string> by =
      options.by.empty() ? std::vector<std::string>{"user"} : split_names(options.by);
  if (is_vm_grouping(by)) {
    if (!options.quota.empty() || options.check || options.chart || !options.plot.empty() ||
        options.idle || !options.user.empty()) {
      return std::unexpected(invalid_input(
          "--by vm reports vGPU use per VM: --quota, --check, --chart, --plot, --idle and --user "
          "do not apply to it"));
    }
    settings.by_vm = true;
    by = {"host"};  // the window is resolved as for any report
  }
  auto group = view::parse_group_by(by);
  if (!group) return std::unexpected(std::move(group.error()));
  const auto since = resolve_time("--since", options.since,
                                  view::period_start(view::CalendarPeriod::month, now_us), now_us);
  if (!since) return std::unexpected(since.error());
  const auto until = resolve_time("--until", options.until, now_us, now_us);
  if (!until) return std::unexpected(until.error());
  if (*since >= *until) {
    return std::unexpected(
        invalid_input(fmt::format("the period is empty: --since {} is not before --until {}",
                                  view::local_minute(*since), view::local_minute(*until))));
  }
  settings.query = store::UsageQuery{.since_us = *since,
                                     .until_us = *until,
                                     .group_by = std::move(*group),
                                     .local_time = true,
                                     .user = unless_empty<std::string>(options.user),
                                     .host = unless_empty<std::string>(options.host)};
  if (auto valid = check_combinations(options, settings); !valid)
    return std::unexpected(std::move(valid.error()));
  if (options.idle) {
    auto idle = idle_query(options, settings.query);
    if (!idle) return std::unexpected(std::move(idle.error()));
    settings.idle_query = std::move(*idle);
  }
  return settings;
}

}  // namespace gpumeter::cli
