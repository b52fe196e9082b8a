// SPDX-License-Identifier: MIT
// `gpumeter list`: every GPU with its load, memory, users and commands; once, or refreshed
// in place with --watch; or once in Prometheus's text format with --prometheus.
#include <chrono>
#include <memory>

#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/json.h"
#include "cli/list_processes.h"
#include "cli/list_prometheus.h"
#include "cli/list_table.h"
#include "cli/metrics_option.h"
#include "cli/terminal.h"
#include "view/list_json.h"

namespace gpumeter::cli {
namespace {

struct ListOptions {
  bool json = false;
  bool processes = false;  // a row per process rather than per GPU
  bool prometheus = false;
  std::string metrics_processes = kDefaultMetricsProcesses;
  double watch_seconds = 0.0;  // 0: print once
  std::size_t count = 0;       // refreshes before stopping; 0: until Ctrl-C
};

std::string render(const Snapshot& snapshot, const ListOptions& options, bool color) {
  if (options.processes) return render_process_table(snapshot, color);
  if (!options.json) return render_list_table(snapshot, color);
  // While watching, one document per line, so that a reader can split the stream.
  return dump_json(view::list_json(snapshot), options.watch_seconds > 0.0) + '\n';
}

int show_prometheus(Context& context, const ListOptions& options) {
  const auto limit = exposition::parse_process_limit(options.metrics_processes);
  if (!limit) return report(context.err, limit.error());
  const auto text = prometheus_once(context.session, *limit);
  if (!text) return report(context.err, text.error());
  context.out << *text << std::flush;
  return 0;
}

int show_once(Context& context, const ListOptions& options) {
  auto snapshot = context.session.snapshot();
  if (!snapshot) return report(context.err, snapshot.error());
  context.out << render(*snapshot, options, context.color) << std::flush;
  return 0;
}

// Before a frame: clear a terminal; otherwise separate tables by a blank line (JSON
// documents are already one per line).
void start_frame(Context& context, const ListOptions& options, std::size_t frame) {
  if (options.json) return;
  if (context.out_is_terminal) {
    context.out << kClearScreen;
  } else if (frame > 0) {
    context.out << '\n';
  }
}

int watch(Context& context, const ListOptions& options) {
  const InterruptScope interrupt;
  const auto interval =
      std::chrono::milliseconds(static_cast<std::int64_t>(options.watch_seconds * 1000.0));
  for (std::size_t frame = 0; options.count == 0 || frame < options.count; ++frame) {
    if (frame > 0 && !interrupt.sleep_for(interval)) break;
    auto snapshot = context.session.snapshot();
    if (!snapshot) return report(context.err, snapshot.error());
    start_frame(context, options, frame);
    context.out << render(*snapshot, options, context.color) << std::flush;
    if (interrupt.interrupted()) break;
  }
  return 0;
}

}  // namespace

Subcommand add_list_command(CLI::App& app) {
  auto options = std::make_shared<ListOptions>();
  CLI::App* list = app.add_subcommand("list", "Show every GPU: load, memory, users, commands");
  CLI::Option* json =
      list->add_flag("--json", options->json, "Print JSON (schemas/list.schema.json)");
  CLI::Option* prometheus =
      list->add_flag("--prometheus", options->prometheus,
                     "Print Prometheus metrics once, after sampling for 2 s (docs/metrics.md)")
          ->excludes(json);
  add_metrics_processes_option(*list, options->metrics_processes)->needs(prometheus);
  list->add_flag("--processes", options->processes,
                 "One row per process: SM, memory, encoder and decoder use over the last 5 s, "
                 "GPU memory, user, age, command")
      ->excludes(json)
      ->excludes(prometheus);
  CLI::Option* watch_option = list->add_option("--watch", options->watch_seconds,
                                               "Refresh every SECONDS (0.01 to 86400) until Ctrl-C")
                                  ->option_text("SECONDS")
                                  ->check(CLI::Range(0.01, 86400.0))
                                  ->excludes(prometheus);
  // For tests and scripts: stop after N refreshes. Hidden (empty group) from --help.
  list->add_option("--count", options->count, "Stop --watch after N refreshes")
      ->group("")
      ->check(CLI::PositiveNumber)
      ->needs(watch_option);
  return {list, [options](Context& context) {
            if (options->prometheus) return show_prometheus(context, *options);
            // Each process's recent engine use costs one more driver call per GPU: only for
            // the outputs that show it.
            context.session.collect_recent_use(options->json || options->processes);
            return options->watch_seconds > 0.0 ? watch(context, *options)
                                                : show_once(context, *options);
          }};
}

}  // namespace gpumeter::cli
