// SPDX-License-Identifier: MIT
// `gpumeter available`: prints free GPUs for CUDA_VISIBLE_DEVICES, reserving them so that
// two calls at the same instant never print the same GPU.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <span>

#include "cli/available_fleet.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/shortage.h"
#include "core/duration.h"
#include "core/selection.h"
#include "core/text.h"
#include "host/reservation.h"

namespace gpumeter::cli {
namespace {

struct AvailableOptions {
  std::size_t limit = 0;  // 0: every free GPU
  SelectionCriteria criteria;
  std::string order = "index";
  bool uuid = false;
  bool mig = false;  // MIG devices instead of whole GPUs
  bool no_reserve = false;
  bool reserve = false;         // --reserve: also without --limit
  CLI::Option* wait = nullptr;  // given, with or without a TIMEOUT
  std::string wait_timeout;     // empty: wait forever
  std::string fleet;            // a master's URL: its fleet's free GPUs instead of this machine's
  std::string token_file;       // with --fleet
};

// The outcome of one look at the GPUs: what to print, or why there is nothing yet.
struct Attempt {
  std::vector<std::string> chosen;
  std::string shortage;
};

GpuOrder order_of(std::string_view name) {
  if (name == "free-memory") return GpuOrder::free_memory;
  if (name == "power") return GpuOrder::power;
  if (name == "priority") return GpuOrder::priority;
  return GpuOrder::index;
}

// `-l N` reserves what it prints, so that two jobs started side by side get different GPUs;
// listing every free GPU reserves nothing unless asked (--reserve): a look at what is free must
// not hold it against the next call that picks one.
bool reserving(const AvailableOptions& options) {
  return !options.no_reserve && (options.limit > 0 || options.reserve);
}

// Reservations are keyed by uuid; a GPU without one is keyed by its index.
std::string reservation_key(const Device& device) {
  return device.identity.uuid.value_or(fmt::format("index-{}", device.identity.index));
}

std::string printed_label(const Device& device, bool uuid) {
  if (uuid && device.identity.uuid) return *device.identity.uuid;
  return fmt::format("{}", device.identity.index);
}

// Reserves up to `want` of the eligible GPUs, or none when fewer than `need` are left; returns
// their positions in eligible order. A
// reservation directory we cannot use costs the guarantee, not the answer: warn and go on.
std::vector<std::size_t> reserve(const Snapshot& snapshot, std::span<const std::size_t> eligible,
                                 std::size_t want, std::size_t need, std::ostream& err) {
  std::vector<std::string> keys;
  for (const std::size_t i : eligible) keys.push_back(reservation_key(snapshot.gpus.devices[i]));
  host::Reservations reservations({});
  auto reserved = reservations.reserve(keys, want, getppid(), need);
  if (!reserved) {
    err << "gpumeter: warning: GPUs not reserved: " << reserved.error().message << '\n';
    return {eligible.begin(), eligible.begin() + static_cast<std::ptrdiff_t>(want)};
  }
  std::vector<std::size_t> chosen;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    if (std::ranges::find(*reserved, keys[k]) != reserved->end()) chosen.push_back(eligible[k]);
  }
  return chosen;
}

// Reserves up to `want` of `keys`, or none when fewer than `need` are left; returns their
// positions in `keys`.
std::vector<std::size_t> reserve_keys(const std::vector<std::string>& keys, std::size_t want,
                                      std::size_t need, std::ostream& err) {
  host::Reservations reservations({});
  auto reserved = reservations.reserve(keys, want, getppid(), need);
  std::vector<std::size_t> chosen;
  if (!reserved) {
    err << "gpumeter: warning: MIG devices not reserved: " << reserved.error().message << '\n';
    for (std::size_t k = 0; k < want; ++k) chosen.push_back(k);
    return chosen;
  }
  for (std::size_t k = 0; k < keys.size(); ++k) {
    if (std::ranges::find(*reserved, keys[k]) != reserved->end()) chosen.push_back(k);
  }
  return chosen;
}

// With --mig: free MIG devices, printed (and reserved) by their MIG UUID, which
// CUDA_VISIBLE_DEVICES accepts. One without a UUID cannot be named there and is skipped.
Attempt attempt_mig(const Snapshot& snapshot, const AvailableOptions& options, std::ostream& err) {
  const MigSelection selection = select_mig_devices(snapshot.gpus, options.criteria);
  std::vector<std::string> uuids;
  for (const MigChoice& c : selection.eligible) {
    const Maybe<std::string>& uuid = snapshot.gpus.devices[c.device].mig->devices[c.instance].uuid;
    if (uuid) uuids.push_back(*uuid);
  }
  const std::size_t need = options.limit == 0 ? 1 : options.limit;
  if (uuids.size() < need) {
    return Attempt{{},
                   fmt::format("no free MIG device: {} free, {} in use, {} wanted", uuids.size(),
                               selection.busy, need)};
  }
  const std::size_t want = options.limit == 0 ? uuids.size() : options.limit;
  std::vector<std::size_t> chosen;
  if (!reserving(options)) {
    for (std::size_t k = 0; k < want; ++k) chosen.push_back(k);
  } else {
    chosen = reserve_keys(uuids, want, need, err);
  }
  if (chosen.size() < need)
    return Attempt{{}, describe_reserved(uuids.size(), chosen.size(), need)};
  Attempt result;
  for (const std::size_t k : chosen) result.chosen.push_back(uuids[k]);
  return result;
}

std::expected<Attempt, Error> attempt(Context& context, const AvailableOptions& options) {
  auto snapshot = context.session.snapshot();
  if (!snapshot) return std::unexpected(std::move(snapshot.error()));
  if (options.mig) return attempt_mig(*snapshot, options, context.err);
  const Selection selection = select_gpus(snapshot->gpus, options.criteria);
  const std::size_t need = options.limit == 0 ? 1 : options.limit;
  const std::size_t free = selection.eligible.size();
  if (free < need) return Attempt{{}, describe_shortage(snapshot->gpus, selection, need)};
  const std::size_t want = options.limit == 0 ? free : options.limit;
  std::vector<std::size_t> chosen =
      !reserving(options)
          ? std::vector<std::size_t>(selection.eligible.begin(),
                                     selection.eligible.begin() + static_cast<std::ptrdiff_t>(want))
          : reserve(*snapshot, selection.eligible, want, need, context.err);
  if (chosen.size() < need) return Attempt{{}, describe_reserved(free, chosen.size(), need)};
  Attempt result;
  for (const std::size_t i : chosen) {
    result.chosen.push_back(printed_label(snapshot->gpus.devices[i], options.uuid));
  }
  return result;
}

int give_up(Context& context, const std::string& prefix, const std::string& shortage, int status) {
  context.err << prefix << shortage << '\n';
  return status;
}

int print_chosen(Context& context, const Attempt& attempt) {
  context.out << fmt::format("{}\n", fmt::join(attempt.chosen, ",")) << std::flush;
  return 0;
}

// Looks every second until enough GPUs are free, the timeout passes, or Ctrl-C.
int wait_for_gpus(Context& context, const AvailableOptions& options) {
  const bool forever = options.wait_timeout.empty();
  const std::chrono::seconds timeout =
      parse_whole_seconds(options.wait_timeout).value_or(std::chrono::seconds(0));
  const auto start = std::chrono::steady_clock::now();
  const InterruptScope interrupt;
  for (;;) {
    auto result = attempt(context, options);
    if (!result) return report(context.err, result.error());
    if (result->shortage.empty()) return print_chosen(context, *result);
    if (!forever && std::chrono::steady_clock::now() - start >= timeout) {
      return give_up(context, fmt::format("timed out after {}s: ", timeout.count()),
                     result->shortage, 1);
    }
    if (!interrupt.sleep_for(std::chrono::seconds(1))) {
      return give_up(context, "interrupted: ", result->shortage, 130);
    }
  }
}

int run_available(Context& context, const AvailableOptions& options) {
  if (options.wait->count() > 0) return wait_for_gpus(context, options);
  auto result = attempt(context, options);
  if (!result) return report(context.err, result.error());
  if (!result->shortage.empty()) return give_up(context, "", result->shortage, 1);
  return print_chosen(context, *result);
}

// CLI11 check for --wait's TIMEOUT: an empty string means success.
std::string check_timeout(const std::string& text) {
  if (text.empty() || parse_whole_seconds(text)) return {};
  return fmt::format(
      "TIMEOUT must be a whole number of seconds, optionally with s, m, h or d "
      "(90, 90s, 10m): {}",
      text);
}

// `--fleet URL`: the master's nodes instead of this machine; no source is opened here.
std::optional<int> fleet_instead(const Output& output, const AvailableOptions& options,
                                 const ServeCommands& serve, std::span<const std::string> args) {
  if (options.fleet.empty()) {
    if (options.token_file.empty()) return std::nullopt;
    output.err << "gpumeter available: --token-file needs --fleet URL\n";
    return 2;
  }
  if (options.mig || options.wait->count() > 0) {
    output.err << "gpumeter available: --fleet prints whole GPUs of the fleet once: --mig and "
                  "--wait apply to this machine only\n";
    return 2;
  }
  FleetAvailableRequest request{.url = options.fleet,
                                .criteria = options.criteria,
                                .limit = options.limit,
                                .uuid = options.uuid};
  request.criteria.order = order_of(options.order);
  if (!options.token_file.empty()) request.token_file = options.token_file;
  return serve.fleet_available(output, request, args);
}

void add_criteria_options(CLI::App& sub, AvailableOptions& options) {
  sub.add_option("--max-memory", options.criteria.max_memory_percent,
                 "A free GPU uses at most PERCENT of its memory (default 20)")
      ->option_text("PERCENT")
      ->check(CLI::Range(0.0, 100.0));
  sub.add_option("--max-util", options.criteria.max_utilization_percent,
                 "A free GPU is busy at most PERCENT of the time (default 20)")
      ->option_text("PERCENT")
      ->check(CLI::Range(0.0, 100.0));
  sub.add_option("--order", options.order,
                 "Which free GPUs come first: lowest index, most free memory, lowest power "
                 "drawn now (the idlest), or priority: the strongest (highest power limit, then "
                 "most free memory) (default index)")
      ->option_text("index|free-memory|power|priority")
      ->check(CLI::IsMember({"index", "free-memory", "power", "priority"}));
}

}  // namespace

Subcommand add_available_command(CLI::App& app, const ServeCommands& serve,
                                 std::span<const std::string> args) {
  auto options = std::make_shared<AvailableOptions>();
  CLI::App* sub =
      app.add_subcommand("available", "Print free GPUs, comma-separated, for CUDA_VISIBLE_DEVICES");
  sub->add_option("-l,--limit", options->limit,
                  "Print N GPUs and reserve them (default: every free one, reserving none)")
      ->option_text("N")
      ->check(CLI::Validator(
          [](const std::string& text) {
            const auto n = parse_integer<std::size_t>(text);
            return n && *n >= 1 ? std::string()
                                : "N must be a whole number of GPUs from 1 "
                                  "(without -l, every free GPU is printed)";
          },
          "N"));
  add_criteria_options(*sub, *options);
  sub->add_flag("--uuid", options->uuid, "Print GPU uuids instead of indices");
  sub->add_flag("--mig", options->mig,
                "Print free MIG devices (no process, memory under --max-memory) by MIG UUID");
  CLI::Option* no_reserve =
      sub->add_flag("--no-reserve", options->no_reserve,
                    "With -l: do not reserve the printed GPUs against concurrent calls");
  sub->add_flag("--reserve", options->reserve,
                "Without -l: reserve every GPU printed against concurrent calls")
      ->excludes(no_reserve);
  options->wait = sub->add_option("--wait", options->wait_timeout,
                                  "Poll every second until enough GPUs are free; give up "
                                  "after TIMEOUT (90, 90s, 10m; default: never)")
                      ->option_text("[TIMEOUT]")
                      ->expected(0, 1)
                      ->check(CLI::Validator(check_timeout, "TIMEOUT"));
  sub->add_option("--fleet", options->fleet,
                  "Print the free GPUs of every node of this gpumeter master, as node:gpu "
                  "lines (docs/master.md)")
      ->option_text("URL");
  sub->add_option("--token-file", options->token_file,
                  "With --fleet: send the master's bearer token in FILE")
      ->option_text("FILE");
  Subcommand command{sub, [options](Context& context) {
                       options->criteria.order = order_of(options->order);
                       return run_available(context, *options);
                     }};
  command.instead_of_session =
      [options, serve, line = std::vector<std::string>(args.begin(), args.end())](
          const Output& output) { return fleet_instead(output, *options, serve, line); };
  return command;
}

}  // namespace gpumeter::cli
