// SPDX-License-Identifier: MIT
#include "view/vgpu_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "view/iso_time.h"

namespace gpumeter::view {
namespace {

// The driver reports whole percent: printed as integers, as list --json prints them.
Json whole_percent(double percent) {
  return static_cast<std::int64_t>(std::llround(percent));
}

Json utilization_json(const VgpuUtilization& u) {
  Json out = Json::object();
  Json unavailable = Json::object();
  out["time"] = iso8601_utc(u.time_us);
  out["time_us"] = u.time_us;
  out["sm_percent"] = whole_percent(u.sm);
  out["memory_percent"] = whole_percent(u.memory);
  out["encoder_percent"] = whole_percent(u.encoder);
  out["decoder_percent"] = whole_percent(u.decoder);
  put(out, unavailable, "jpeg_percent", u.jpeg, whole_percent);
  put(out, unavailable, "ofa_percent", u.ofa, whole_percent);
  out["unavailable"] = std::move(unavailable);
  return out;
}

Json license_json(const VgpuLicense& l) {
  Json out = Json::object();
  Json unavailable = Json::object();
  out["licensed"] = l.licensed;
  put(out, unavailable, "state", l.state, [](LicenseState s) { return Json(to_string(s)); });
  put(out, unavailable, "expiry_status", l.expiry_kind,
      [](LicenseExpiryKind k) { return Json(to_string(k)); });
  if (l.expiry_us) {
    put_time(out, "expiry", *l.expiry_us);
  } else {
    out["expiry"] = nullptr;
    out["expiry_time_us"] = nullptr;
  }
  out["unavailable"] = std::move(unavailable);
  return out;
}

Json record_json(const VgpuAccountingRecord& r) {
  Json out = Json::object();
  Json unavailable = Json::object();
  out["pid"] = r.pid;
  put(out, unavailable, "gpu_utilization_percent", r.gpu_utilization, whole_percent);
  put(out, unavailable, "memory_utilization_percent", r.memory_utilization, whole_percent);
  put(out, unavailable, "max_memory_bytes", r.max_memory_bytes);
  put_time(out, "start", r.start_us);
  out["running"] = r.running;
  out["duration_s"] =
      r.duration_us ? Json(static_cast<double>(*r.duration_us) / 1e6) : Json(nullptr);
  out["unavailable"] = std::move(unavailable);
  return out;
}

Json accounting_json(const VgpuAccounting& a) {
  Json out = Json::object();
  Json unavailable = Json::object();
  out["enabled"] = a.enabled;
  put(out, unavailable, "records", a.records, [](const std::vector<VgpuAccountingRecord>& list) {
    Json records = Json::array();
    for (const VgpuAccountingRecord& r : list) records.push_back(record_json(r));
    return records;
  });
  out["unavailable"] = std::move(unavailable);
  return out;
}

Json instance_json(const VgpuInstance& v) {
  Json out = Json::object();
  Json unavailable = Json::object();
  out["id"] = v.id;
  put(out, unavailable, "uuid", v.uuid);
  put(out, unavailable, "vm_id", v.vm_id);
  put(out, unavailable, "vm_id_type", v.vm_id_kind, [](VmIdKind k) { return Json(to_string(k)); });
  put(out, unavailable, "type_id", v.type_id);
  put(out, unavailable, "type_name", v.type_name);
  put(out, unavailable, "fb_used_bytes", v.fb_used_bytes);
  put(out, unavailable, "license", v.license, license_json);
  put(out, unavailable, "utilization", v.utilization, utilization_json);
  put(out, unavailable, "accounting", v.accounting, accounting_json);
  out["unavailable"] = std::move(unavailable);
  return out;
}

Json process_json(const VgpuProcess& p, const VgpuHost& host) {
  Json out = Json::object();
  out["instance"] = p.instance;
  const auto it = std::ranges::find(host.instances, p.instance, &VgpuInstance::id);
  out["vm_id"] = it != host.instances.end() && it->vm_id ? Json(*it->vm_id) : Json(nullptr);
  out["pid"] = p.pid;
  out["name"] = text_or_null(p.name);
  out["utilization"] = utilization_json(p.utilization);
  return out;
}

}  // namespace

Json gpu_vgpu_json(const VgpuHost& host) {
  Json out = Json::object();
  Json unavailable = Json::object();
  Json& instances = out["instances"] = Json::array();
  for (const VgpuInstance& v : host.instances) instances.push_back(instance_json(v));
  put(out, unavailable, "processes", host.processes, [&](const std::vector<VgpuProcess>& list) {
    Json processes = Json::array();
    for (const VgpuProcess& p : list) processes.push_back(process_json(p, host));
    return processes;
  });
  out["unavailable"] = std::move(unavailable);
  return out;
}

Json vgpu_json(const Snapshot& snapshot) {
  Json out = Json::object();
  out["schema_version"] = kVgpuSchemaVersion;
  out["host"] = snapshot.hostname;
  out["time"] = iso8601_utc(snapshot.time_us);
  out["time_us"] = snapshot.time_us;
  out["source"] = snapshot.source;
  Json& gpus = out["gpus"] = Json::array();
  for (const Device& device : snapshot.gpus.devices) {
    Json gpu = Json::object();
    Json unavailable = Json::object();
    gpu["index"] = device.identity.index;
    put(gpu, unavailable, "uuid", device.identity.uuid);
    put(gpu, unavailable, "name", device.identity.name);
    put(gpu, unavailable, "vgpu", device.vgpu, gpu_vgpu_json);
    gpu["unavailable"] = std::move(unavailable);
    gpus.push_back(std::move(gpu));
  }
  return out;
}

bool has_vgpu_host(const Snapshot& snapshot) {
  return std::ranges::any_of(snapshot.gpus.devices,
                             [](const Device& d) { return d.vgpu.has_value(); });
}

}  // namespace gpumeter::view
