// SPDX-License-Identifier: MIT
#include "cli/session.h"

#include <fmt/format.h>
#include <unistd.h>

#include <array>

#include "cli/simulate.h"
#include "core/wall_clock.h"
#include "host/procfs.h"

namespace gpumeter::cli {
std::string hostname() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "localhost";
  return name.data();
}

Session::Session(std::unique_ptr<GpuSource> gpus, std::unique_ptr<ProcessSource> host,
                 CollectOptions options, std::shared_ptr<const void> machine)
    : machine_(std::move(machine)),
      gpus_(std::move(gpus)),
      host_(std::move(host)),
      options_(std::move(options)) {}

std::expected<Snapshot, Error> Session::snapshot() {
  return collect(*gpus_, *host_, options_, wall_clock_us());
}

std::expected<Snapshot, Error> Session::inventory() {
  return collect_inventory(*gpus_, options_, wall_clock_us());
}

std::expected<HostSide, Error> open_host_side(const GlobalOptions& options) {
  GpuSourceOptions gpus{.nvml_library = {},
                        .jetson_root = options.jetson_root.empty() ? "/" : options.jetson_root,
                        .only = options.source};
  if (!options.simulate_jetson.empty()) {
    if (!options.simulate.empty()) {
      return std::unexpected(Error{ErrorCode::invalid_input,
                                   "--simulate and --simulate-jetson name two machines: give one"});
    }
    auto board = start_jetson_simulation(options.simulate_jetson);
    if (!board) return std::unexpected(std::move(board.error()));
    gpus.jetson_root = board->root.string();
    gpus.only = "jetson";  // a Jetson board has no NVML
    return HostSide{std::move(board->host), fmt::format(" ({})", board->label), std::move(gpus),
                    std::move(board->board)};
  }
  if (options.simulate.empty()) {
    return HostSide{std::make_unique<host::ProcfsProcessSource>(), "", std::move(gpus), nullptr};
  }
  auto simulation = start_simulation(options.simulate);
  if (!simulation) return std::unexpected(std::move(simulation.error()));
  gpus.nvml_library = simulation->library.string();
  return HostSide{std::move(simulation->host), fmt::format(" ({})", simulation->label),
                  std::move(gpus), nullptr};
}

Session make_session(HostSide host, OpenedSource gpus) {
  CollectOptions collect_options{
      .hostname = hostname(), .source_label = fmt::format("{}{}", gpus.row->name, host.simulated)};
  return Session(std::move(gpus.source), std::move(host.host), std::move(collect_options),
                 std::move(host.machine));
}

std::expected<Session, Error> open_session(const GlobalOptions& options) {
  auto host = open_host_side(options);
  if (!host) return std::unexpected(std::move(host.error()));
  auto gpus = open_default_gpu_source(host->gpus);
  if (!gpus) return std::unexpected(std::move(gpus.error()));
  return make_session(std::move(*host), std::move(*gpus));
}

}  // namespace gpumeter::cli
