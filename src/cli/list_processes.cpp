// SPDX-License-Identifier: MIT
#include "cli/list_processes.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <vector>

#include "cli/table.h"
#include "view/gpu_status.h"
#include "view/humanize.h"
#include "view/sm_unknown.h"

namespace gpumeter::cli {
namespace {

const std::array kProcessTableColumns{
    Column{"GPU", Align::right}, Column{"PID", Align::right},        Column{"USER"},
    Column{"SM", Align::right},  Column{"MEM", Align::right},        Column{"ENC", Align::right},
    Column{"DEC", Align::right}, Column{"GPU MEMORY", Align::right}, Column{"SINCE", Align::right},
    Column{"COMMAND"},
};

std::string engine_cell(const Maybe<RecentEngineUse>& use, Maybe<double> RecentEngineUse::* field) {
  if (!use || !((*use).*field)) return std::string(view::kNotAvailable);
  return fmt::format("{}%", std::lround(*((*use).*field)));
}

// "0" for a whole GPU; "0/1.0" for a process in MIG instance GI 1, CI 0 of GPU 0.
std::string process_gpu_cell(const Device& device, const GpuProcess& process) {
  if (!process.mig) return fmt::format("{}", device.identity.index);
  return fmt::format("{}/{}.{}", device.identity.index, process.mig->gpu_instance_id,
                     process.mig->compute_instance_id);
}

Row process_table_row(const Device& device, const GpuProcess& process, const Snapshot& snapshot) {
  const Maybe<HostProcess>& host = view::host_view(snapshot.processes, process.pid);
  const auto na = [](const Maybe<std::string>& text) {
    return text.value_or(std::string(view::kNotAvailable));
  };
  const Maybe<TimeUs> started =
      host ? host->start_time_us : Maybe<TimeUs>(std::unexpected(host.error()));
  const Maybe<double> memory =
      process.used_memory_bytes ? Maybe<double>(static_cast<double>(*process.used_memory_bytes))
                                : Maybe<double>(std::unexpected(process.used_memory_bytes.error()));
  return {
      {process_gpu_cell(device, process)},
      {fmt::format("{}", process.pid)},
      {host ? na(host->user) : std::string(view::kNotAvailable)},
      {engine_cell(process.recent_use, &RecentEngineUse::sm_percent)},
      {engine_cell(process.recent_use, &RecentEngineUse::memory_percent)},
      {engine_cell(process.recent_use, &RecentEngineUse::encoder_percent)},
      {engine_cell(process.recent_use, &RecentEngineUse::decoder_percent)},
      {memory ? view::format_bytes(*memory) : std::string(view::kNotAvailable)},
      {started ? view::format_age(snapshot.time_us - *started) : std::string(view::kNotAvailable)},
      {na(view::brief_command(host))},
  };
}

// Why a GPU's processes have no engine figures, once per GPU.
std::string engine_use_note(const Device& device) {
  if (!device.processes) return "";
  for (const GpuProcess& process : *device.processes) {
    if (process.recent_use) return "";
    const Unavailable reason = process.recent_use.error();
    if (reason == Unavailable::no_data) return "";
    const std::string text =
        reason == Unavailable::mig
            ? view::sm_unknown_text("mig")
            : fmt::format("the driver gives no per-process utilisation ({})", to_string(reason));
    return fmt::format("GPU {}: SM, MEM, ENC, DEC N/A: {}.\n", device.identity.index, text);
  }
  return "";
}

}  // namespace

std::string render_process_table(const Snapshot& snapshot, bool color) {
  std::vector<Row> rows;
  std::string notes;
  for (const Device& device : snapshot.gpus.devices) {
    if (!device.processes) {
      notes += fmt::format("GPU {}: processes N/A ({}).\n", device.identity.index,
                           to_string(device.processes.error()));
      continue;
    }
    for (const GpuProcess& process : *device.processes)
      rows.push_back(process_table_row(device, process, snapshot));
    notes += engine_use_note(device);
  }
  std::string out = fmt::format("{}  {}  over the last 5 s\n", snapshot.hostname,
                                view::local_time(snapshot.time_us));
  out += render_table(kProcessTableColumns, rows, color);
  if (rows.empty()) out += "no processes on any GPU\n";
  return out + notes;
}

}  // namespace gpumeter::cli
