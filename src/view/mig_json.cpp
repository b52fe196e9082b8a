// SPDX-License-Identifier: MIT
#include "view/mig_json.h"

#include <cmath>
#include <string>

namespace gpumeter::view {
namespace {

template <class T>
void put_or_null(Json& obj, Json& unavailable, const std::string& key, const Maybe<T>& value) {
  if (value) {
    obj[key] = *value;
  } else {
    obj[key] = nullptr;
    unavailable[key] = to_string(value.error());
  }
}

void put_bytes(Json& obj, Json& unavailable, const std::string& key, const Maybe<double>& value) {
  const Maybe<std::int64_t> whole =
      value ? Maybe<std::int64_t>(std::llround(*value)) : std::unexpected(value.error());
  put_or_null(obj, unavailable, key, whole);
}

Json mig_device_json(const MigDevice& mig) {
  Json out = Json::object();
  Json unavailable = Json::object();
  out["gpu_instance_id"] = mig.gpu_instance_id;
  out["compute_instance_id"] = mig.compute_instance_id;
  put_or_null(out, unavailable, "uuid", mig.uuid);
  put_or_null(out, unavailable, "profile", mig.profile);
  put_bytes(out, unavailable, "memory_total_bytes", mig.memory_total_bytes);
  put_bytes(out, unavailable, "memory_used_bytes", mig.memory_used_bytes);
  if (mig.processes) {
    Json& pids = out["pids"] = Json::array();
    for (const GpuProcess& process : *mig.processes) pids.push_back(process.pid);
  } else {
    out["pids"] = nullptr;
    unavailable["pids"] = to_string(mig.processes.error());
  }
  // Never a made-up 0: the driver has no per-process utilisation under MIG.
  out["process_utilization"] = nullptr;
  unavailable["process_utilization"] = to_string(Unavailable::mig);
  // GPM figures of its GPU instance, keyed as the GPU's.
  for (std::size_t i = 0; i < kGpmMetrics.size(); ++i) {
    const MetricSpec& row = spec(kGpmMetrics[i]);
    const Maybe<double>& value = mig.gpm[i];
    if (row.integral)
      put_bytes(out, unavailable, std::string(row.key), value);
    else
      put_or_null(out, unavailable, std::string(row.key), value);
  }
  out["unavailable"] = std::move(unavailable);
  return out;
}

}  // namespace

void put_mig(Json& gpu, Json& unavailable, const Device& device) {
  if (!device.mig) {
    gpu["mig"] = nullptr;
    unavailable["mig"] = to_string(device.mig.error());
    return;
  }
  Json mig = Json::object();
  mig["enabled"] = device.mig->enabled;
  Json& devices = mig["devices"] = Json::array();
  for (const MigDevice& instance : device.mig->devices)
    devices.push_back(mig_device_json(instance));
  gpu["mig"] = std::move(mig);
}

}  // namespace gpumeter::view
