// SPDX-License-Identifier: MIT
// Draining a vGPU host's utilisation samples: per instance and per process inside the VMs,
// each with the 550+ versioned call when the driver has it and the older one otherwise.
#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "nvml/convert.h"
#include "nvml/vgpu.h"

namespace gpumeter::nvml {
namespace {

// The protocol every list call here shares, around `fill(array, count)`: size with a NULL
// array (SUCCESS: nothing; INSUFFICIENT_SIZE: the count), read into exactly that many, and
// size again while the driver says the list grew in between (bounded). NOT_FOUND means
// nothing is newer than lastSeenTimeStamp: an empty list.
template <class Raw, class Fill>
Maybe<std::vector<Raw>> sized_list(Fill fill) {
  unsigned count = 0;
  CallResult code = fill(nullptr, count);
  for (int attempt = 0; attempt < kVgpuListAttempts; ++attempt) {
    if (code && (*code == abi::kSuccess || *code == abi::kErrorNotFound) && attempt == 0)
      return std::vector<Raw>{};
    if (!code || *code != abi::kErrorInsufficientSize) break;
    if (count == 0 || count > kVgpuMaxEntries) return std::unexpected(Unavailable::error);
    std::vector<Raw> raw(count);
    code = fill(raw.data(), count);
    if (code && *code == abi::kErrorNotFound) return std::vector<Raw>{};
    if (code && *code == abi::kSuccess) {
      raw.resize(std::min<std::size_t>(count, raw.size()));
      return raw;
    }
  }
  if (code && *code == abi::kErrorInsufficientSize) return std::unexpected(Unavailable::error);
  return std::unexpected(DeviceQuery::succeeded(code).error());
}

void keep_newest(VgpuDrainState& state, std::uint32_t instance, const VgpuUtilization& u) {
  if (static_cast<std::uint64_t>(u.time_us) <= state.instance_last_seen_us) return;
  auto [it, inserted] = state.newest.try_emplace(instance, u);
  if (!inserted && it->second.time_us < u.time_us) it->second = u;
}

void advance(std::uint64_t& last_seen, std::int64_t time_us) {
  last_seen = std::max(last_seen, static_cast<std::uint64_t>(std::max<std::int64_t>(time_us, 0)));
}

// nvmlDeviceGetVgpuInstancesUtilizationInfo; `refused` when the driver did not understand it.
Maybe<void> drain_instances_info(DeviceQuery& query, VgpuDrainState& state, bool& refused) {
  const std::uint64_t last_seen = state.instance_last_seen_us;
  abi::ValueType type = abi::kValueTypeUnsignedInt;
  auto fill = [&](abi::VgpuInstanceUtilizationInfoV1* array, unsigned& count) {
    abi::VgpuInstancesUtilizationInfoV1 info{};
    info.version = abi::kVgpuInstancesUtilizationInfoVersion;
    info.vgpu_instance_count = count;
    info.last_seen_time_stamp = last_seen;
    info.vgpu_util_array = array;
    const CallResult code = query.invoke(query.api().vgpu_instances_utilization_info, &info);
    count = info.vgpu_instance_count;
    type = info.sample_val_type;
    if (code && means_try_older_call(*code)) refused = true;
    return code;
  };
  auto raw = sized_list<abi::VgpuInstanceUtilizationInfoV1>(fill);
  if (!raw) return std::unexpected(raw.error());
  std::uint64_t newest = last_seen;
  for (const auto& s : *raw) {
    VgpuUtilization u{.time_us = static_cast<std::int64_t>(s.time_stamp),
                      .sm = value_as_double(s.sm_util, type),
                      .memory = value_as_double(s.mem_util, type),
                      .encoder = value_as_double(s.enc_util, type),
                      .decoder = value_as_double(s.dec_util, type),
                      .jpeg = value_as_double(s.jpg_util, type),
                      .ofa = value_as_double(s.ofa_util, type)};
    keep_newest(state, s.vgpu_instance, u);
    advance(newest, u.time_us);
  }
  state.instance_last_seen_us = newest;
  return {};
}

// nvmlDeviceGetVgpuUtilization: no JPEG or OFA figures, which stay absent.
Maybe<void> drain_instances_old(DeviceQuery& query, VgpuDrainState& state) {
  const std::uint64_t last_seen = state.instance_last_seen_us;
  abi::ValueType type = abi::kValueTypeUnsignedInt;
  auto fill = [&](abi::VgpuInstanceUtilizationSample* array, unsigned& count) {
    return query.invoke(query.api().vgpu_utilization, last_seen, &type, &count, array);
  };
  auto raw = sized_list<abi::VgpuInstanceUtilizationSample>(fill);
  if (!raw) return std::unexpected(raw.error());
  std::uint64_t newest = last_seen;
  for (const auto& s : *raw) {
    VgpuUtilization u{.time_us = static_cast<std::int64_t>(s.time_stamp),
                      .sm = value_as_double(s.sm_util, type),
                      .memory = value_as_double(s.mem_util, type),
                      .encoder = value_as_double(s.enc_util, type),
                      .decoder = value_as_double(s.dec_util, type)};
    keep_newest(state, s.vgpu_instance, u);
    advance(newest, u.time_us);
  }
  state.instance_last_seen_us = newest;
  return {};
}

std::string name_of(const char (&raw)[abi::kVgpuNameBufferSize]) {
  return std::string(raw, strnlen(raw, sizeof(raw)));
}

// The newest sample per (instance, pid), in the order first seen.
void merge(std::vector<VgpuProcess>& out, VgpuProcess p) {
  auto same = [&](const VgpuProcess& q) { return q.instance == p.instance && q.pid == p.pid; };
  if (auto it = std::ranges::find_if(out, same); it != out.end()) {
    if (it->utilization.time_us < p.utilization.time_us) *it = std::move(p);
    return;
  }
  out.push_back(std::move(p));
}

Maybe<std::vector<VgpuProcess>> drain_processes_info(DeviceQuery& query, VgpuDrainState& state,
                                                     bool& refused) {
  const std::uint64_t last_seen = state.process_last_seen_us;
  auto fill = [&](abi::VgpuProcessUtilizationInfoV1* array, unsigned& count) {
    abi::VgpuProcessesUtilizationInfoV1 info{abi::kVgpuProcessesUtilizationInfoVersion, count,
                                             last_seen, array};
    const CallResult code = query.invoke(query.api().vgpu_processes_utilization_info, &info);
    count = info.vgpu_process_count;
    if (code && means_try_older_call(*code)) refused = true;
    return code;
  };
  auto raw = sized_list<abi::VgpuProcessUtilizationInfoV1>(fill);
  if (!raw) return std::unexpected(raw.error());
  std::vector<VgpuProcess> out;
  for (const auto& s : *raw) {
    if (s.time_stamp <= last_seen) continue;  // junk the driver may repeat
    VgpuUtilization u{.time_us = static_cast<std::int64_t>(s.time_stamp),
                      .sm = static_cast<double>(s.sm_util),
                      .memory = static_cast<double>(s.mem_util),
                      .encoder = static_cast<double>(s.enc_util),
                      .decoder = static_cast<double>(s.dec_util),
                      .jpeg = static_cast<double>(s.jpg_util),
                      .ofa = static_cast<double>(s.ofa_util)};
    advance(state.process_last_seen_us, u.time_us);
    merge(out, VgpuProcess{s.vgpu_instance, s.pid, name_of(s.process_name), u});
  }
  return out;
}

Maybe<std::vector<VgpuProcess>> drain_processes_old(DeviceQuery& query, VgpuDrainState& state) {
  const std::uint64_t last_seen = state.process_last_seen_us;
  auto fill = [&](abi::VgpuProcessUtilizationSample* array, unsigned& count) {
    return query.invoke(query.api().vgpu_process_utilization, last_seen, &count, array);
  };
  auto raw = sized_list<abi::VgpuProcessUtilizationSample>(fill);
  if (!raw) return std::unexpected(raw.error());
  std::vector<VgpuProcess> out;
  for (const auto& s : *raw) {
    if (s.time_stamp <= last_seen) continue;
    VgpuUtilization u{.time_us = static_cast<std::int64_t>(s.time_stamp),
                      .sm = static_cast<double>(s.sm_util),
                      .memory = static_cast<double>(s.mem_util),
                      .encoder = static_cast<double>(s.enc_util),
                      .decoder = static_cast<double>(s.dec_util)};
    advance(state.process_last_seen_us, u.time_us);
    merge(out, VgpuProcess{s.vgpu_instance, s.pid, name_of(s.process_name), u});
  }
  return out;
}

}  // namespace

Maybe<void> drain_vgpu_instance_utilization(DeviceQuery& query, VgpuDrainState& state) {
  if (query.api().vgpu_instances_utilization_info) {
    bool refused = false;
    auto drained = drain_instances_info(query, state, refused);
    if (drained || !refused) return drained;
  }
  return drain_instances_old(query, state);
}

Maybe<std::vector<VgpuProcess>> drain_vgpu_processes(DeviceQuery& query, VgpuDrainState& state) {
  if (query.api().vgpu_processes_utilization_info) {
    bool refused = false;
    auto drained = drain_processes_info(query, state, refused);
    if (drained || !refused) return drained;
  }
  return drain_processes_old(query, state);
}

}  // namespace gpumeter::nvml
