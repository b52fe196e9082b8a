// SPDX-License-Identifier: MIT
// `gpumeter vgpu`: a vGPU host's instances, the processes inside the VMs, and accounting
// (docs/vgpu.md).
#include <fmt/format.h>

#include <memory>

#include "cli/commands.h"
#include "cli/vgpu_table.h"
#include "view/vgpu_json.h"

namespace gpumeter::cli {
namespace {

struct VgpuOptions {
  bool json = false;
  std::optional<std::uint32_t> clear_instance;
};

int clear_accounting(Context& context, std::uint32_t instance) {
  const Maybe<void> cleared = context.session.gpus().clear_vgpu_accounting(instance);
  if (cleared) {
    context.out << fmt::format(
        "cleared the accounting records of ended processes in vGPU "
        "instance {}\n",
        instance);
    return 0;
  }
  if (cleared.error() == Unavailable::no_permission) {
    context.err << "gpumeter: clearing vGPU accounting needs root (run with sudo)\n";
  } else {
    context.err << fmt::format("gpumeter: could not clear the accounting of vGPU instance {}: {}\n",
                               instance, to_string(cleared.error()));
  }
  return 1;
}

int run_accounting(Context& context, const VgpuOptions& options) {
  if (options.clear_instance) return clear_accounting(context, *options.clear_instance);
  auto snapshot = context.session.snapshot();
  if (!snapshot) return report(context.err, snapshot.error());
  context.out << (options.json ? view::dump_json(view::vgpu_json(*snapshot), false) + '\n'
                               : render_vgpu_accounting_table(*snapshot, context.color))
              << std::flush;
  return 0;
}

}  // namespace

Subcommand add_vgpu_command(CLI::App& app) {
  auto options = std::make_shared<VgpuOptions>();
  CLI::App* vgpu = app.add_subcommand(
      "vgpu", "Show a vGPU host's instances (VMs), their licences and utilisation");
  vgpu->add_flag("--json", options->json, "Print the document of schemas/vgpu.schema.json");
  CLI::App* accounting =
      vgpu->add_subcommand("accounting", "Show (or clear) the accounting records per instance");
  accounting->add_flag("--json", options->json, "Print the document of schemas/vgpu.schema.json");
  accounting->add_option("--clear", options->clear_instance,
                         "Clear the records of ended processes in this instance id (root)");
  return {vgpu, [options, accounting](Context& context) {
            if (accounting->parsed()) return run_accounting(context, *options);
            auto snapshot = context.session.snapshot();
            if (!snapshot) return report(context.err, snapshot.error());
            context.out << (options->json
                                ? view::dump_json(view::vgpu_json(*snapshot), false) + '\n'
                                : render_vgpu_table(*snapshot, context.color))
                        << std::flush;
            return 0;
          }};
}

}  // namespace gpumeter::cli
