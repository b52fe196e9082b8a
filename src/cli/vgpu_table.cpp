// SPDX-License-Identifier: MIT
#include "cli/vgpu_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "cli/table.h"
#include "view/humanize.h"

namespace gpumeter::cli {
namespace {

std::string text(const Maybe<std::string>& value) {
  return value ? *value : std::string(view::kNotAvailable);
}

std::string percent(const Maybe<double>& value) {
  return view::format_whole(value, "%");
}

// "licensed", "unlicensed (restricted)", "licensed, expires 2027-03-31T23:59:59Z", ...
std::string license_text(const Maybe<VgpuLicense>& license) {
  if (!license) return fmt::format("{} ({})", view::kNotAvailable, to_string(license.error()));
  std::string out =
      license->state ? to_string(*license->state) : (license->licensed ? "licensed" : "unlicensed");
  if (const std::optional<std::int64_t>& expiry = license->expiry_us; expiry.has_value()) {
    out += ", expires " + view::iso8601_utc(*expiry);
  } else if (license->expiry_kind && *license->expiry_kind == LicenseExpiryKind::permanent) {
    out += ", permanent";
  }
  return out;
}

// "SM 50% MEM 20% ENC 30% DEC 25% JPG 10% OFA 5%" (JPG/OFA N/A on older drivers).
std::string use_text(const VgpuUtilization& u) {
  return fmt::format("SM {} MEM {} ENC {} DEC {} JPG {} OFA {}", percent(u.sm), percent(u.memory),
                     percent(u.encoder), percent(u.decoder), percent(u.jpeg), percent(u.ofa));
}

std::string use_text(const Maybe<VgpuUtilization>& u) {
  if (!u) return fmt::format("{} ({})", view::kNotAvailable, to_string(u.error()));
  return use_text(*u);
}

const std::array<Column, 7> kInstanceColumns{{
    {"GPU", Align::right},
    {"VGPU", Align::left},
    {"VM", Align::left},
    {"TYPE", Align::left},
    {"FB USED", Align::right},
    {"LICENCE", Align::left},
    {"UTILISATION", Align::left},
}};

Row instance_row(const Device& device, const VgpuInstance& v) {
  const Maybe<double> fb = v.fb_used_bytes ? Maybe<double>(static_cast<double>(*v.fb_used_bytes))
                                           : std::unexpected(v.fb_used_bytes.error());
  return {{fmt::format("{}", device.identity.index)},
          {text(v.uuid)},
          {text(v.vm_id)},
          {text(v.type_name)},
          {fb ? view::format_bytes(*fb) : std::string(view::kNotAvailable)},
          {license_text(v.license)},
          {use_text(v.utilization)}};
}

const std::array<Column, 5> kProcessColumns{{
    {"GPU", Align::right},
    {"VM", Align::left},
    {"PID", Align::right},
    {"NAME", Align::left},
    {"UTILISATION", Align::left},
}};

std::string vm_of(const VgpuHost& host, std::uint32_t instance) {
  const auto it = std::ranges::find(host.instances, instance, &VgpuInstance::id);
  return it != host.instances.end() ? text(it->vm_id) : fmt::format("instance {}", instance);
}

const std::array<Column, 9> kAccountingColumns{{
    {"GPU", Align::right},
    {"VM", Align::left},
    {"MODE", Align::left},
    {"PID", Align::right},
    {"GPU UTIL", Align::right},
    {"MEM UTIL", Align::right},
    {"MAX MEMORY", Align::right},
    {"STARTED", Align::left},
    {"RAN", Align::right},
}};

void add_accounting_rows(std::vector<Row>& rows, const Device& device, const VgpuInstance& v) {
  const std::string gpu = fmt::format("{}", device.identity.index);
  if (!v.accounting) {
    rows.push_back(
        {{gpu},
         {text(v.vm_id)},
         {fmt::format("{} ({})", view::kNotAvailable, to_string(v.accounting.error()))}});
    return;
  }
  const std::string mode = v.accounting->enabled ? "enabled" : "disabled";
  if (!v.accounting->records || v.accounting->records->empty()) {
    rows.push_back({{gpu}, {text(v.vm_id)}, {mode}});
    return;
  }
  for (const VgpuAccountingRecord& r : *v.accounting->records) {
    const Maybe<double> max = r.max_memory_bytes
                                  ? Maybe<double>(static_cast<double>(*r.max_memory_bytes))
                                  : std::unexpected(r.max_memory_bytes.error());
    rows.push_back({{gpu},
                    {text(v.vm_id)},
                    {mode},
                    {fmt::format("{}", r.pid)},
                    {percent(r.gpu_utilization)},
                    {percent(r.memory_utilization)},
                    {max ? view::format_bytes(*max) : std::string(view::kNotAvailable)},
                    {view::iso8601_utc(r.start_us)},
                    {r.duration_us ? view::format_age(*r.duration_us) : std::string("running")}});
  }
}

}  // namespace

std::string render_vgpu_table(const Snapshot& snapshot, bool color) {
  std::vector<Row> instances;
  std::vector<Row> processes;
  std::string bare_metal;
  for (const Device& device : snapshot.gpus.devices) {
    if (!device.vgpu) {
      bare_metal += fmt::format("GPU {}: no vGPU host ({})\n", device.identity.index,
                                to_string(device.vgpu.error()));
      continue;
    }
    for (const VgpuInstance& v : device.vgpu->instances)
      instances.push_back(instance_row(device, v));
    if (!device.vgpu->processes) continue;
    for (const VgpuProcess& p : *device.vgpu->processes) {
      processes.push_back({{fmt::format("{}", device.identity.index)},
                           {vm_of(*device.vgpu, p.instance)},
                           {fmt::format("{}", p.pid)},
                           {p.name.empty() ? std::string(view::kNotAvailable) : p.name},
                           {use_text(p.utilization)}});
    }
  }
  std::string out = render_table(kInstanceColumns, instances, color);
  if (instances.empty()) out += "no vGPU instances\n";
  out += "\nprocesses inside the VMs (busy since the previous sample):\n";
  out += processes.empty() ? "none\n" : render_table(kProcessColumns, processes, color);
  if (!bare_metal.empty()) out += "\n" + bare_metal;
  return out;
}

std::string render_vgpu_accounting_table(const Snapshot& snapshot, bool color) {
  std::vector<Row> rows;
  for (const Device& device : snapshot.gpus.devices) {
    if (!device.vgpu) continue;
    for (const VgpuInstance& v : device.vgpu->instances) add_accounting_rows(rows, device, v);
  }
  std::string out = render_table(kAccountingColumns, rows, color);
  if (rows.empty()) out += "no vGPU instances\n";
  return out;
}

}  // namespace gpumeter::cli
