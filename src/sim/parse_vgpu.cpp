// SPDX-License-Identifier: MIT
// "vgpu": which GPUs run as vGPU hosts, their vGPU instances (one per VM) and the processes
// inside those VMs (docs/vgpu.md, docs/scenarios.md).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>

#include "sim/parse_parts.h"

namespace gpumeter::sim::parse {
namespace {

struct NamedState {
  std::string_view name;
  std::uint32_t value;
};

// NVML_GRID_LICENSE_STATE_*
constexpr std::array kLicenseStates{
    NamedState{"unknown", 0},
    NamedState{"uninitialized", 1},
    NamedState{"unlicensed_unrestricted", 2},
    NamedState{"unlicensed_restricted", 3},
    NamedState{"unlicensed", 4},
    NamedState{"licensed", 5},
};

std::uint32_t license_state(Reader& reader, const Cursor& at) {
  const std::string text = reader.string(at);
  for (const NamedState& row : kLicenseStates) {
    if (row.name == text) return row.value;
  }
  if (!reader.failed()) {
    reader.fail(at, fmt::format("expected \"licensed\", \"unlicensed\", "
                                "\"unlicensed_restricted\", \"unlicensed_unrestricted\", "
                                "\"uninitialized\" or \"unknown\", found \"{}\"",
                                text));
  }
  return 0;
}

// "permanent", "not_available", "not_applicable", "invalid" or "YYYY-MM-DDTHH:MM:SSZ".
void expiry(Reader& reader, const Cursor& at, VgpuLicenseSpec& license) {
  const std::string text = reader.string(at);
  if (reader.failed()) return;
  if (text == "permanent") {
    license.expiry_status = 4;
  } else if (text == "not_available") {
    license.expiry_status = 0;
  } else if (text == "not_applicable") {
    license.expiry_status = 3;
  } else if (text == "invalid") {
    license.expiry_status = 1;
  } else {
    char zulu = 0;
    const int fields =
        std::sscanf(text.c_str(), "%4u-%2u-%2uT%2u:%2u:%2u%c", &license.year, &license.month,
                    &license.day, &license.hour, &license.minute, &license.second, &zulu);
    if (fields != 7 || zulu != 'Z' || license.month < 1 || license.month > 12 || license.day < 1 ||
        license.day > 31 || license.hour > 23 || license.minute > 59 || license.second > 59) {
      reader.fail(at, fmt::format("expected \"permanent\", \"not_available\", "
                                  "\"not_applicable\", \"invalid\" or a UTC time such as "
                                  "\"2027-03-31T23:59:59Z\", found \"{}\"",
                                  text));
      return;
    }
    license.expiry_status = 2;
  }
}

VgpuLicenseSpec license(Reader& reader, const Cursor& at) {
  const ObjectCursor object = reader.object(at, {"state", "expiry"});
  VgpuLicenseSpec l;
  l.state = license_state(reader, reader.required(object, "state", "a licence state"));
  if (auto e = reader.member(object, "expiry")) expiry(reader, *e, l);
  return l;
}

void lifetime(Reader& reader, const ObjectCursor& object, double& start_s, double& end_s) {
  start_s = reader.number_or(object, "start_s", 0);
  if (auto end = reader.member(object, "end_s")) {
    end_s = reader.number(*end);
    if (!reader.failed() && end_s <= start_s) reader.fail(*end, "expected end_s after start_s");
  }
}

VgpuAccountingSpec accounting_record(Reader& reader, const Cursor& at) {
  const ObjectCursor object = reader.object(
      at, {"pid", "gpu_utilization", "memory_utilization", "max_memory_bytes", "start_s", "end_s"});
  VgpuAccountingSpec r;
  r.pid = static_cast<std::uint32_t>(
      reader.whole(reader.required(object, "pid", "a pid inside the VM"), 4'194'304));
  r.gpu_utilization = static_cast<unsigned>(reader.whole_or(object, "gpu_utilization", 0, 100));
  r.memory_utilization =
      static_cast<unsigned>(reader.whole_or(object, "memory_utilization", 0, 100));
  r.max_memory_bytes = reader.whole_or(object, "max_memory_bytes", 0);
  lifetime(reader, object, r.start_s, r.end_s);
  return r;
}

void accounting(Reader& reader, const Cursor& at, VgpuInstanceSpec& v) {
  const ObjectCursor object = reader.object(at, {"enabled", "processes"});
  v.accounting_enabled = reader.boolean_or(object, "enabled", false);
  if (auto list = reader.member(object, "processes")) {
    for (const Cursor& item : reader.elements(*list))
      v.accounting.push_back(accounting_record(reader, item));
  }
}

std::uint32_t vm_id_type(Reader& reader, const Cursor& at) {
  const std::string text = reader.string(at);
  if (text == "domain") return 0;
  if (text != "uuid" && !reader.failed())
    reader.fail(at, fmt::format("expected \"domain\" or \"uuid\", found \"{}\"", text));
  return 1;
}

VgpuInstanceSpec instance(Reader& reader, const Cursor& at, const VgpuSpec& spec,
                          std::size_t device_count) {
  const ObjectCursor object = reader.object(
      at, {"device", "id", "uuid", "vm_id", "vm_id_type", "type_id", "type_name", "fb_used_bytes",
           "license", "guest_driver", "accounting", "start_s", "end_s", "appears_after_sizing"});
  VgpuInstanceSpec v;
  v.line = reader.line(at);
  const Cursor device = reader.required(object, "device", "the index of the physical GPU");
  v.device = device_index(reader, device, device_count);
  if (!reader.failed() && !spec.is_host(v.device))
    reader.fail(device, fmt::format("device {} is not listed in \"hosts\"", v.device));
  const Cursor id = reader.required(object, "id", "the vGPU instance id, a number above 0");
  v.id = static_cast<std::uint32_t>(reader.whole(id, UINT32_MAX));
  if (!reader.failed() && v.id == 0) reader.fail(id, "expected a number above 0");
  const bool taken = std::ranges::any_of(
      spec.instances, [&](const VgpuInstanceSpec& other) { return other.id == v.id; });
  if (!reader.failed() && taken) reader.fail(id, fmt::format("instance {} appears twice", v.id));
  v.uuid = reader.string_or(object, "uuid", fmt::format("00000000-0000-4000-a000-{:012x}", v.id));
  v.vm_id = reader.string_or(object, "vm_id", fmt::format("vm-{}", v.id));
  if (auto type = reader.member(object, "vm_id_type")) v.vm_id_type = vm_id_type(reader, *type);
  v.type_id = static_cast<std::uint32_t>(reader.whole_or(object, "type_id", 0, UINT32_MAX));
  v.type_name = reader.string(reader.required(object, "type_name", "e.g. \"NVIDIA A16-4Q\""));
  if (auto fb = reader.member(object, "fb_used_bytes"))
    v.fb_used_bytes = profile(reader, *fb, 0, 1e15);
  if (auto l = reader.member(object, "license")) v.license = license(reader, *l);
  v.guest_driver = reader.boolean_or(object, "guest_driver", true);
  if (auto a = reader.member(object, "accounting")) accounting(reader, *a, v);
  lifetime(reader, object, v.start_s, v.end_s);
  v.appears_after_sizing = reader.boolean_or(object, "appears_after_sizing", false);
  return v;
}

void utilization(Reader& reader, const Cursor& at, VgpuProcessSpec& p) {
  const ObjectCursor object = reader.object(at, {"sm", "mem", "enc", "dec", "jpg", "ofa"});
  p.sm = profile(reader, reader.required(object, "sm", "a utilisation profile (percent)"), 0, 100);
  if (auto mem = reader.member(object, "mem")) p.mem = profile(reader, *mem, 0, 100);
  if (auto enc = reader.member(object, "enc")) p.enc = profile(reader, *enc, 0, 100);
  if (auto dec = reader.member(object, "dec")) p.dec = profile(reader, *dec, 0, 100);
  if (auto jpg = reader.member(object, "jpg")) p.jpg = profile(reader, *jpg, 0, 100);
  if (auto ofa = reader.member(object, "ofa")) p.ofa = profile(reader, *ofa, 0, 100);
}

VgpuProcessSpec process(Reader& reader, const Cursor& at, const VgpuSpec& spec) {
  const ObjectCursor object =
      reader.object(at, {"instance", "pid", "name", "utilization", "start_s", "end_s"});
  VgpuProcessSpec p;
  p.line = reader.line(at);
  const Cursor instance = reader.required(object, "instance", "the id of a vGPU instance");
  p.instance = static_cast<std::uint32_t>(reader.whole(instance, UINT32_MAX));
  const bool known = std::ranges::any_of(
      spec.instances, [&](const VgpuInstanceSpec& v) { return v.id == p.instance; });
  if (!reader.failed() && !known)
    reader.fail(instance, fmt::format("no vGPU instance has id {}", p.instance));
  const Cursor pid = reader.required(object, "pid", "a pid inside the VM");
  p.pid = static_cast<std::uint32_t>(reader.whole(pid, 4'194'304));
  if (!reader.failed() && p.pid == 0) reader.fail(pid, "expected a pid above 0");
  p.name = reader.string_or(object, "name", "");
  if (p.name.size() >= 64 && !reader.failed())
    reader.fail(reader.required(object, "name", ""), "expected at most 63 characters");
  if (auto u = reader.member(object, "utilization")) utilization(reader, *u, p);
  lifetime(reader, object, p.start_s, p.end_s);
  return p;
}

}  // namespace

VgpuSpec vgpu(Reader& reader, const Cursor& at, std::size_t device_count) {
  const ObjectCursor object = reader.object(at, {"hosts", "instances", "processes"});
  VgpuSpec spec;
  for (const Cursor& item :
       reader.elements(reader.required(object, "hosts", "an array of device indices")))
    spec.hosts.push_back(device_index(reader, item, device_count));
  if (auto list = reader.member(object, "instances")) {
    for (const Cursor& item : reader.elements(*list))
      spec.instances.push_back(instance(reader, item, spec, device_count));
  }
  if (auto list = reader.member(object, "processes")) {
    for (const Cursor& item : reader.elements(*list))
      spec.processes.push_back(process(reader, item, spec));
  }
  return spec;
}

}  // namespace gpumeter::sim::parse
