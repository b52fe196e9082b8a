// SPDX-License-Identifier: MIT
#include "view/vgpu_summary_json.h"

#include <cmath>
#include <cstdint>

namespace gpumeter::view {
namespace {

Json instance_summary(const VgpuInstance& instance) {
  Json out = Json::object();
  Json unavailable = Json::object();
  out["id"] = instance.id;
  put(out, unavailable, "uuid", instance.uuid);
  put(out, unavailable, "vm_id", instance.vm_id);
  put(out, unavailable, "type_name", instance.type_name);
  // g++ 12's std::expected has no transform().
  const Maybe<double> sm = instance.utilization ? Maybe<double>(instance.utilization->sm)
                                                : std::unexpected(instance.utilization.error());
  // The driver reports whole percent, printed as integers as `vgpu --json` prints them.
  put(out, unavailable, "sm_percent", sm,
      [](double percent) { return static_cast<std::int64_t>(std::llround(percent)); });
  put(out, unavailable, "fb_used_bytes", instance.fb_used_bytes);
  out["unavailable"] = std::move(unavailable);
  return out;
}

}  // namespace

void put_vgpu_summary(Json& gpu, Json& unavailable, const Device& device) {
  if (!device.vgpu) {
    gpu["vgpu"] = nullptr;
    unavailable["vgpu"] = to_string(device.vgpu.error());
    return;
  }
  Json summary = Json::object();
  // What gpumeter reads: that the driver lists the GPU's vGPU instances. It does not read the
  // driver's virtualisation mode (time-sliced or SR-IOV), so this is the only mode it names.
  summary["mode"] = "host";
  summary["instance_count"] = device.vgpu->instances.size();
  Json& instances = summary["instances"] = Json::array();
  for (const VgpuInstance& instance : device.vgpu->instances)
    instances.push_back(instance_summary(instance));
  gpu["vgpu"] = std::move(summary);
}

}  // namespace gpumeter::view
