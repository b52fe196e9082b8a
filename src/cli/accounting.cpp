// SPDX-License-Identifier: MIT
// `gpumeter accounting status|enable|disable|clear|show`: NVML's accounting mode, the
// driver's own lifetime record of every process on a GPU (docs/accounting.md).
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "cli/accounting_table.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/report_database.h"
#include "view/accounting_ledger.h"

namespace gpumeter::cli {
namespace {

struct AccountingOptions {
  std::optional<std::uint32_t> gpu;
  bool json = false;
  std::optional<std::filesystem::path> database;
};

enum class Change : std::uint8_t { enable, disable, clear };

std::string_view action_of(Change change) {
  switch (change) {
    case Change::enable: return "enabling accounting mode";
    case Change::disable: return "disabling accounting mode";
    case Change::clear: return "clearing accounting records";
  }
  return "changing accounting mode";
}

// The refusal as one line that says what to do.
std::string refusal_text(std::uint32_t gpu, Change change, AccountingRefusal refusal) {
  switch (refusal) {
    case AccountingRefusal::needs_root:
      return fmt::format("GPU {}: {} needs root (run with sudo)", gpu, action_of(change));
    case AccountingRefusal::mig_enabled:
      return fmt::format(
          "GPU {}: MIG is enabled: the driver keeps accounting mode off on "
          "MIG-enabled GPUs (disable MIG to use it)",
          gpu);
    case AccountingRefusal::not_supported:
      return change == Change::clear
                 ? fmt::format(
                       "GPU {}: nothing to clear: accounting mode is off or not "
                       "supported on this GPU",
                       gpu)
                 : fmt::format("GPU {}: this GPU or driver does not support accounting mode", gpu);
    case AccountingRefusal::gpu_lost:
      return fmt::format("GPU {}: {} failed: the GPU has fallen off the bus", gpu,
                         action_of(change));
    case AccountingRefusal::no_such_gpu: return fmt::format("no GPU has index {}", gpu);
    case AccountingRefusal::error: break;
  }
  return fmt::format("GPU {}: {} failed: the driver reported an error", gpu, action_of(change));
}

std::string done_text(std::uint32_t gpu, Change change) {
  switch (change) {
    case Change::enable: return fmt::format("GPU {}: accounting mode enabled", gpu);
    case Change::disable:
      return fmt::format("GPU {}: accounting mode disabled (its records are gone)", gpu);
    case Change::clear: return fmt::format("GPU {}: records of exited processes cleared", gpu);
  }
  return {};
}

// The mode lives in the loaded driver: without persistence mode the driver unloads when the
// last process closes the GPU, and the mode goes with it.
void warn_about_persistence(const Device& device, std::ostream& err) {
  if (device.state.persistence_mode && *device.state.persistence_mode) return;
  err << fmt::format(
      "warning: persistence mode is off on GPU {}: accounting mode is lost when the driver "
      "unloads (when no process holds the GPU); turn persistence mode on (nvidia-smi -pm 1)\n",
      device.identity.index);
}

// The snapshot with only the chosen GPU, or an error when no GPU has that index.
std::expected<Snapshot, Error> selected(Snapshot snapshot, std::optional<std::uint32_t> gpu) {
  if (!gpu) return snapshot;
  std::erase_if(snapshot.gpus.devices,
                [&](const Device& device) { return device.identity.index != *gpu; });
  if (snapshot.gpus.devices.empty())
    return std::unexpected(
        Error{ErrorCode::invalid_input, fmt::format("--gpu {}: no GPU has that index", *gpu)});
  return snapshot;
}

int change_one(AccountingControl& control, const Device& device, Change change, Context& context) {
  const std::uint32_t gpu = device.identity.index;
  const auto done = change == Change::clear
                        ? control.clear_accounting(gpu)
                        : control.set_accounting_mode(gpu, change == Change::enable);
  if (!done) {
    context.err << refusal_text(gpu, change, done.error()) << '\n';
    return 1;
  }
  context.out << done_text(gpu, change) << '\n';
  if (change == Change::enable) warn_about_persistence(device, context.err);
  return 0;
}

int run_change(Context& context, const Snapshot& snapshot, Change change) {
  AccountingControl* control = context.session.gpus().accounting_control();
  if (control == nullptr) {
    context.err << "this GPU source cannot change accounting mode\n";
    return 1;
  }
  int status = 0;
  for (const Device& device : snapshot.gpus.devices) {
    status = std::max(status, change_one(*control, device, change, context));
  }
  return status;
}

// Who ran each record's process: the snapshot's host view for running ones, else the
// history's ledger when a database can be read (silently none when it cannot).
view::KnownProcessLookup lookup_for(const Snapshot& snapshot, const AccountingOptions& options) {
  std::shared_ptr<view::LedgerProcesses> ledger;
  auto store = open_report_database(
      report_database_candidates(options.database, store::location_environment()));
  if (store) {
    if (auto read = view::LedgerProcesses::read(*store, snapshot))
      ledger = std::make_shared<view::LedgerProcesses>(std::move(*read));
  }
  return [&snapshot, ledger](const Device& device, const AccountingRecord& record) {
    if (auto known = view::known_from_snapshot(snapshot, record)) return known;
    return ledger ? ledger->find(device, record) : std::nullopt;
  };
}

int run_show(Context& context, const Snapshot& snapshot, const AccountingOptions& options) {
  const view::KnownProcessLookup lookup = lookup_for(snapshot, options);
  if (options.json) {
    context.out << view::dump_json(view::accounting_json(snapshot, lookup), false) << '\n';
  } else {
    context.out << render_accounting_records(snapshot, lookup, context.color);
  }
  context.out << std::flush;
  return 0;
}

struct Chosen {
  CLI::App* status = nullptr;
  CLI::App* enable = nullptr;
  CLI::App* disable = nullptr;
  CLI::App* clear = nullptr;
  CLI::App* show = nullptr;
};

int run_chosen(Context& context, const Chosen& chosen, const AccountingOptions& options) {
  auto read = context.session.snapshot();
  if (!read) return report(context.err, read.error());
  auto snapshot = selected(std::move(*read), options.gpu);
  if (!snapshot) return report(context.err, snapshot.error());
  if (chosen.enable->parsed()) return run_change(context, *snapshot, Change::enable);
  if (chosen.disable->parsed()) return run_change(context, *snapshot, Change::disable);
  if (chosen.clear->parsed()) return run_change(context, *snapshot, Change::clear);
  if (chosen.show->parsed()) return run_show(context, *snapshot, options);
  context.out << render_accounting_status(*snapshot, context.color) << std::flush;
  return 0;
}

CLI::App* add_action(CLI::App& parent, const char* name, const char* help,
                     AccountingOptions& options) {
  CLI::App* action = parent.add_subcommand(name, help);
  action->add_option("--gpu", options.gpu, "Only the GPU with this index")->option_text("I");
  return action;
}

}  // namespace

Subcommand add_accounting_command(CLI::App& app) {
  auto options = std::make_shared<AccountingOptions>();
  CLI::App* accounting = app.add_subcommand(
      "accounting", "Show or change NVML accounting mode: the driver's per-process records");
  accounting->require_subcommand(1);
  Chosen chosen;
  chosen.status = add_action(*accounting, "status", "Show each GPU's accounting mode", *options);
  chosen.enable = add_action(*accounting, "enable",
                             "Turn accounting mode on (root; lost when the driver unloads unless "
                             "persistence mode is on; MIG-enabled GPUs refuse it)",
                             *options);
  chosen.disable = add_action(*accounting, "disable",
                              "Turn accounting mode off, dropping every record (root)", *options);
  chosen.clear =
      add_action(*accounting, "clear", "Drop the records of exited processes (root)", *options);
  chosen.show = add_action(*accounting, "show",
                           "One row per process in the driver's accounting buffer", *options);
  chosen.show->add_flag("--json", options->json, "Print JSON (schemas/accounting.schema.json)");
  chosen.show
      ->add_option("--database", options->database,
                   "History database to name users and commands from (as `report` finds it)")
      ->option_text("PATH");
  return {accounting,
          [options, chosen](Context& context) { return run_chosen(context, chosen, *options); }};
}

}  // namespace gpumeter::cli
