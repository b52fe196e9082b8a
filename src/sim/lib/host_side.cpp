// SPDX-License-Identifier: MIT
// gpumeterSimHostSide: the scenario's host side for gpumeter's own process source, from the
// parse that the library's next nvmlInit then uses (sim/host_side_abi.h).
#include "sim/lib/host_side.h"

#include "sim/lib/exports.h"
#include "sim/lib/library.h"
#include "sim/machine_clock.h"

namespace gpumeter::sim::lib {

std::unique_ptr<HostSideExport> HostSideExport::of(const Scenario& scenario) {
  std::unique_ptr<HostSideExport> out(new HostSideExport);
  const std::size_t n = scenario.processes.size();
  // Sized once: the C view holds pointers into these.
  out->hosts_.reserve(n);
  out->commands_.reserve(n);
  out->processes_.reserve(n);
  for (const ProcessSpec& p : scenario.processes) {
    const HostSpec& host = out->hosts_.emplace_back(p.host.value_or(HostSpec{}));
    std::vector<const char*>& command = out->commands_.emplace_back();
    for (const std::string& word : host.command) command.push_back(word.c_str());
    const bool container = host.container.has_value();
    out->processes_.push_back(GpumeterSimHostProcess{
        .pid = p.pid,
        .real = p.real ? 1 : 0,
        .end_s = p.end_s,
        .described = p.host ? 1 : 0,
        .hidden = host.hidden ? 1 : 0,
        .user = host.user.c_str(),
        .has_uid = host.uid ? 1 : 0,
        .uid = host.uid.value_or(0),
        .command = command.data(),
        .command_length = command.size(),
        .started_s = host.started_s,
        .container_runtime = container ? host.container->runtime.c_str() : nullptr,
        .container_id = container ? host.container->id.c_str() : nullptr});
  }
  out->side_ = GpumeterSimHostSide{.error = nullptr,
                                   .history_lead_s = history_lead_s(scenario),
                                   .process_count = out->processes_.size(),
                                   .processes = out->processes_.data()};
  return out;
}

std::unique_ptr<HostSideExport> HostSideExport::failed(std::string error) {
  std::unique_ptr<HostSideExport> out(new HostSideExport);
  out->error_ = std::move(error);
  out->side_.error = out->error_.c_str();
  return out;
}

}  // namespace gpumeter::sim::lib

extern "C" GPUMETER_SIM_EXPORT const GpumeterSimHostSide* gpumeterSimHostSide(
    const char* scenario_path, unsigned version) {
  using gpumeter::sim::lib::Library;
  if (scenario_path == nullptr || version != gpumeter::sim::kGpumeterSimHostSideVersion)
    return nullptr;
  try {
    Library& library = Library::instance();
    std::lock_guard lock(library.mutex());
    return &library.host_side(scenario_path);
  } catch (...) {
    return nullptr;  // nothing may cross a C entry point; the caller parses the file itself
  }
}
