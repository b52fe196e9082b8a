// SPDX-License-Identifier: MIT
#include "cli/list_table.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

#include "cli/list_board.h"
#include "cli/list_vgpu.h"
#include "cli/table.h"
#include "view/gpu_status.h"
#include "view/humanize.h"

namespace gpumeter::cli {
namespace {

using enum DeviceMetric;

const std::array<Column, 12> kColumns{{
    {"GPU", Align::right},
    {"", Align::left},
    {"NAME", Align::left},
    {"UTIL", Align::right},
    {"MEMORY", Align::right},
    {"TEMP", Align::right},
    {"POWER", Align::right},
    {"SM CLOCK", Align::right},
    {"USERS", Align::left},
    {"SINCE", Align::left},
    {"PIDS", Align::left},
    {"COMMAND", Align::left},
}};

Color status_color(view::GpuStatus status) {
  switch (status) {
    case view::GpuStatus::free: return Color::green;
    case view::GpuStatus::in_use:
    case view::GpuStatus::vgpu_host: return Color::blue;
    case view::GpuStatus::unknown_owner:
    case view::GpuStatus::unknown:
    case view::GpuStatus::lost: return Color::red;
  }
  return Color::none;
}

std::string text_or_na(const Maybe<std::string>& value) {
  return value.value_or(std::string(view::kNotAvailable));
}

std::string power_cell(const DeviceState& state) {
  if (!state[power_draw] && !state[power_limit]) return std::string(view::kNotAvailable);
  return fmt::format("{} / {}", view::format_whole(state[power_draw], "W"),
                     view::format_whole(state[power_limit], "W"));
}

std::string since_cell(const Device& device, const Snapshot& snapshot) {
  if (!device.processes) return std::string(view::kNotAvailable);
  if (device.processes->empty()) return "";
  const std::optional<TimeUs> oldest = view::oldest_start(device, snapshot.processes);
  return oldest ? view::format_age(snapshot.time_us - *oldest) : std::string(view::kNotAvailable);
}

std::string pids_cell(const Device& device) {
  if (!device.processes) return std::string(view::kNotAvailable);
  std::vector<Pid> pids;
  for (const GpuProcess& process : *device.processes) pids.push_back(process.pid);
  return fmt::format("{}", fmt::join(pids, ","));
}

std::string commands_cell(const Device& device, const Snapshot& snapshot) {
  if (!device.processes) return std::string(view::kNotAvailable);
  std::vector<std::string> commands;
  for (const GpuProcess& process : *device.processes) {
    const Maybe<HostProcess>& host = view::host_view(snapshot.processes, process.pid);
    commands.push_back(view::brief_command(host).value_or(std::string(view::kNotAvailable)));
  }
  return fmt::format("{}", fmt::join(commands, ","));
}

// A vGPU host's users are its VMs (the line under the table names them).
std::string users_cell(const Device& device, const Snapshot& snapshot) {
  if (device.vgpu) {
    const std::size_t vms = device.vgpu->instances.size();
    return fmt::format("{} VM{}", vms, vms == 1 ? "" : "s");
  }
  if (!device.processes) return std::string(view::kNotAvailable);
  return fmt::format("{}", fmt::join(view::gpu_users(device, snapshot.processes), ","));
}

Row device_row(const Device& device, const Snapshot& snapshot) {
  const view::GpuStatus status = view::gpu_status(device, snapshot.processes);
  const Color color = status_color(status);
  const DeviceState& state = device.state;
  return {
      {fmt::format("{}", device.identity.index), color},
      {std::string(view::status_marker(status)), color},
      {text_or_na(device.identity.name)},
      {view::format_whole(state[utilization_gpu], "%")},
      {view::format_memory(state[memory_used], state[memory_total])},
      {view::format_whole(state[temperature], "C")},
      {power_cell(state)},
      {view::format_whole(state[clock_sm], "MHz")},
      {users_cell(device, snapshot)},
      {since_cell(device, snapshot)},
      {pids_cell(device)},
      {commands_cell(device, snapshot)},
  };
}

// The table's cells read processes through a Device: an instance is shown as one that
// holds only its own processes.
Device instance_as_device(const MigDevice& mig) {
  Device device;
  device.processes = mig.processes;
  return device;
}

std::string mig_name_cell(const MigDevice& mig) {
  return fmt::format("  MIG {}  GI {} CI {}", text_or_na(mig.profile), mig.gpu_instance_id,
                     mig.compute_instance_id);
}

// One indented row per MIG device under its GPU, as nvidia-smi's MIG table; its UTIL is N/A
// (the driver reports none under MIG; the note under the table says so).
Row mig_row(const MigDevice& mig, const Snapshot& snapshot) {
  const Device device = instance_as_device(mig);
  return {
      {""},
      {""},
      {mig_name_cell(mig)},
      {std::string(view::kNotAvailable)},
      {view::format_memory(mig.memory_used_bytes, mig.memory_total_bytes)},
      {""},
      {""},
      {""},
      {users_cell(device, snapshot)},
      {since_cell(device, snapshot)},
      {pids_cell(device)},
      {commands_cell(device, snapshot)},
  };
}

bool in_mig_mode(const Device& device) {
  return device.mig && device.mig->enabled;
}

std::string header_line(const Snapshot& snapshot) {
  const DriverInfo& driver = snapshot.gpus.driver;
  return fmt::format("{}  driver {}  CUDA {}  {}\n", snapshot.hostname,
                     text_or_na(driver.driver_version), text_or_na(driver.cuda_driver_version),
                     view::local_time(snapshot.time_us));
}

}  // namespace

std::string render_list_table(const Snapshot& snapshot, bool color) {
  std::vector<Row> rows;
  rows.reserve(snapshot.gpus.devices.size());
  bool any_mig = false;
  for (const Device& device : snapshot.gpus.devices) {
    rows.push_back(device_row(device, snapshot));
    if (!in_mig_mode(device)) continue;
    any_mig = true;
    for (const MigDevice& mig : device.mig->devices) rows.push_back(mig_row(mig, snapshot));
  }
  std::string out = header_line(snapshot);
  out += render_table(kColumns, rows, color);
  if (rows.empty()) out += "no GPUs found\n";
  if (any_mig)
    out += fmt::format("{}, nor the utilisation of a GPU in MIG mode (UTIL N/A).\n",
                       kMigNoProcessUtilization);
  out += vgpu_host_lines(snapshot);
  out += board_lines(snapshot);
  return out;
}

}  // namespace gpumeter::cli
