// SPDX-License-Identifier: MIT
#include "nvml/mig.h"

#include <cstring>
#include <string_view>
#include <vector>

#include "nvml/device_reader.h"

namespace gpumeter::nvml {
namespace {

Maybe<std::string> read_text(DeviceQuery& query, const Entry<abi::DeviceStringFn>& entry,
                             unsigned size) {
  std::vector<char> buffer(size, '\0');
  if (auto ok = query.call(entry, buffer.data(), size); !ok) return std::unexpected(ok.error());
  return std::string(buffer.data(), strnlen(buffer.data(), buffer.size()));
}

// The driver names a MIG device after its parent and profile: "NVIDIA H100 80GB HBM3 MIG
// 1g.10gb". The profile is the part after the last " MIG ".
Maybe<std::string> profile_of(const Maybe<std::string>& name) {
  if (!name) return std::unexpected(name.error());
  constexpr std::string_view kMarker = " MIG ";
  const std::size_t at = name->rfind(kMarker);
  if (at == std::string::npos) return std::unexpected(Unavailable::not_supported);
  return name->substr(at + kMarker.size());
}

// v2 first (used without reserved memory), v1 where the driver does not know v2.
void read_memory(DeviceQuery& query, MigDevice& mig) {
  abi::MemoryV2 v2{};
  v2.version = abi::kMemoryV2Version;
  const CallResult code = query.invoke(query.api().memory_info_v2, &v2);
  const bool try_v1 = (!code && code.error() == Unavailable::not_supported) ||
                      (code && means_try_older_call(*code));
  if (!try_v1) {
    if (auto ok = DeviceQuery::succeeded(code); !ok) {
      mig.memory_total_bytes = mig.memory_used_bytes = std::unexpected(ok.error());
      return;
    }
    mig.memory_total_bytes = static_cast<double>(v2.total);
    mig.memory_used_bytes = static_cast<double>(v2.used);
    return;
  }
  const auto v1 = query.get<abi::Memory>(query.api().memory_info);
  if (!v1) {
    mig.memory_total_bytes = mig.memory_used_bytes = std::unexpected(v1.error());
    return;
  }
  mig.memory_total_bytes = static_cast<double>(v1->total);
  mig.memory_used_bytes = static_cast<double>(v1->used);
}

MigDevice read_mig_device(const EntryPoints& api, abi::Device handle) {
  DeviceQuery query(api, handle);
  MigDevice mig;
  mig.gpu_instance_id = query.get<unsigned>(api.gpu_instance_id).value_or(0);
  mig.compute_instance_id = query.get<unsigned>(api.compute_instance_id).value_or(0);
  mig.uuid = read_text(query, api.uuid, abi::kDeviceUuidBufferSize);
  mig.profile = profile_of(read_text(query, api.name, abi::kDeviceNameBufferSize));
  read_memory(query, mig);
  mig.processes = read_processes(query);
  return mig;
}

}  // namespace

Maybe<MigState> read_mig_mode_only(DeviceQuery& parent) {
  unsigned current = 0;
  unsigned pending = 0;
  if (auto ok = parent.call(parent.api().mig_mode, &current, &pending); !ok)
    return std::unexpected(ok.error());
  MigState state;
  state.enabled = current == abi::kMigEnable;
  return state;
}

Maybe<MigState> read_mig(DeviceQuery& parent) {
  const EntryPoints& api = parent.api();
  Maybe<MigState> state = read_mig_mode_only(parent);
  if (!state || !state->enabled) return state;
  const Maybe<unsigned> max = parent.get<unsigned>(api.max_mig_device_count);
  if (!max) return std::unexpected(max.error());
  for (unsigned slot = 0; slot < *max && !parent.lost(); ++slot) {
    abi::Device handle = nullptr;
    const CallResult code = parent.invoke(api.mig_handle_by_index, slot, &handle);
    if (!code || *code != abi::kSuccess) continue;  // NOT_FOUND: an empty slot
    state->devices.push_back(read_mig_device(api, handle));
  }
  return state;
}

void mark_mig_restrictions(DeviceState& state) {
  for (const DeviceMetric metric :
       {DeviceMetric::utilization_gpu, DeviceMetric::utilization_memory,
        DeviceMetric::utilization_encoder, DeviceMetric::utilization_decoder}) {
    Maybe<double>& value = state[metric];
    if (!value && value.error() == Unavailable::not_supported)
      value = std::unexpected(Unavailable::mig);
  }
}

}  // namespace gpumeter::nvml
