// SPDX-License-Identifier: MIT
// vGPU utilisation: per instance and per process inside the VMs, each with the older call
// and the 550+ versioned one. The sizing protocol (NVML reference §3.7, §6.2 (a)): a NULL
// array answers INSUFFICIENT_SIZE with the count needed, or SUCCESS when there is nothing;
// NOT_FOUND when nothing is newer than lastSeenTimeStamp.
//
// Per instance: the newest sample period after lastSeenTimeStamp, one entry per active
// instance (the sum of its processes). Per process: every sample period after it in the
// driver's buffer, for each process with non-zero use, oldest first.
#include <algorithm>
#include <cstring>

#include "sim/lib/exports.h"
#include "sim/lib/vgpu_state.h"

namespace gpumeter::sim::lib {
namespace {

struct InstanceSample {
  std::uint32_t instance = 0;
  SimUs time = 0;
  VgpuPercent use;
};

struct ProcessSample {
  const VgpuProcessSpec* process = nullptr;
  SimUs time = 0;
  VgpuPercent use;
};

std::vector<InstanceSample> instance_samples(const DeviceCall& call, std::uint64_t last_seen) {
  const auto periods = sample_periods(call.spec, call.now, call.scenario_time(last_seen));
  if (periods.empty()) return {};
  const SimUs period = call.spec.sample_period_us;
  const SimUs end = periods.back() * period;
  std::vector<InstanceSample> out;
  for (const VgpuInstanceSpec* v : visible_instances(call.library, call.index, call.t())) {
    const VgpuUse use =
        instance_mean(call.library.scenario(), v->id, seconds(end - period), seconds(end));
    out.push_back(InstanceSample{v->id, end, rounded(use)});
  }
  return out;
}

std::vector<ProcessSample> process_samples(const DeviceCall& call, std::uint64_t last_seen) {
  const SimUs period = call.spec.sample_period_us;
  const auto visible = visible_instances(call.library, call.index, call.t());
  std::vector<ProcessSample> out;
  for (SimUs k : sample_periods(call.spec, call.now, call.scenario_time(last_seen))) {
    for (const VgpuProcessSpec& p : call.library.scenario().vgpu.processes) {
      const bool here = std::ranges::any_of(
          visible, [&](const VgpuInstanceSpec* v) { return v->id == p.instance; });
      if (!here) continue;
      const VgpuPercent use =
          rounded(process_mean(p, seconds((k - 1) * period), seconds(k * period)));
      if (use.any()) out.push_back(ProcessSample{&p, k * period, use});
    }
  }
  // The driver keeps a bounded buffer: the newest samples.
  const std::size_t capacity = call.spec.process_sample_capacity;
  if (out.size() > capacity) out.erase(out.begin(), out.end() - static_cast<long>(capacity));
  return out;
}

abi::Value uint_value(unsigned v) {
  abi::Value value{};
  value.ui = v;
  return value;
}

// The part of the protocol both instance calls share. `count` is the caller's capacity;
// `array_given` whether it passed an array. Answers the code, and the list when it is
// SUCCESS with something to write.
abi::Return size_check(const DeviceCall& call, std::size_t need, unsigned& count,
                       bool array_given) {
  if (!array_given) {
    if (need == 0) {
      count = 0;
      return abi::kSuccess;
    }
    count = static_cast<unsigned>(need);
    note_sizing(call.library, call.index);
    return abi::kErrorInsufficientSize;
  }
  if (count < need) {
    count = static_cast<unsigned>(need);
    return abi::kErrorInsufficientSize;
  }
  return abi::kSuccess;
}

}  // namespace
}  // namespace gpumeter::sim::lib

using namespace gpumeter::sim;       // NOLINT(google-build-using-namespace): C entry points
using namespace gpumeter::sim::lib;  // NOLINT(google-build-using-namespace)

abi::Return nvmlDeviceGetVgpuUtilization(abi::Device device, std::uint64_t last_seen,
                                         abi::ValueType* type, unsigned* count,
                                         abi::VgpuInstanceUtilizationSample* samples) {
  return vgpu_device_call("nvmlDeviceGetVgpuUtilization", device, [&](const DeviceCall& call) {
    if (type == nullptr || count == nullptr) return abi::kErrorInvalidArgument;
    if (samples != nullptr && *count == 0) return abi::kErrorInvalidArgument;
    *type = abi::kValueTypeUnsignedInt;
    const auto instances = visible_instances(call.library, call.index, call.t());
    if (samples == nullptr) return size_check(call, instances.size(), *count, false);
    const auto list = instance_samples(call, last_seen);
    if (list.empty()) return abi::kErrorNotFound;
    if (auto code = size_check(call, list.size(), *count, true); code != abi::kSuccess) return code;
    std::ranges::transform(list, samples, [&](const InstanceSample& s) {
      return abi::VgpuInstanceUtilizationSample{s.instance,
                                                call.stamp(s.time),
                                                uint_value(s.use.sm),
                                                uint_value(s.use.mem),
                                                uint_value(s.use.enc),
                                                uint_value(s.use.dec)};
    });
    *count = static_cast<unsigned>(list.size());
    return abi::kSuccess;
  });
}

abi::Return nvmlDeviceGetVgpuInstancesUtilizationInfo(abi::Device device,
                                                      abi::VgpuInstancesUtilizationInfoV1* info) {
  return vgpu_device_call(
      "nvmlDeviceGetVgpuInstancesUtilizationInfo", device, [&](const DeviceCall& call) {
        if (info == nullptr) return abi::kErrorInvalidArgument;
        if (info->version != abi::kVgpuInstancesUtilizationInfoVersion)
          return abi::kErrorArgumentVersionMismatch;
        info->sample_val_type = abi::kValueTypeUnsignedInt;
        const auto instances = visible_instances(call.library, call.index, call.t());
        if (info->vgpu_util_array == nullptr)
          return size_check(call, instances.size(), info->vgpu_instance_count, false);
        const auto list = instance_samples(call, info->last_seen_time_stamp);
        if (list.empty()) return abi::kErrorNotFound;
        if (auto code = size_check(call, list.size(), info->vgpu_instance_count, true);
            code != abi::kSuccess)
          return code;
        std::ranges::transform(list, info->vgpu_util_array, [&](const InstanceSample& s) {
          return abi::VgpuInstanceUtilizationInfoV1{call.stamp(s.time),    s.instance,
                                                    uint_value(s.use.sm),  uint_value(s.use.mem),
                                                    uint_value(s.use.enc), uint_value(s.use.dec),
                                                    uint_value(s.use.jpg), uint_value(s.use.ofa)};
        });
        info->vgpu_instance_count = static_cast<unsigned>(list.size());
        return abi::kSuccess;
      });
}

abi::Return nvmlDeviceGetVgpuProcessUtilization(abi::Device device, std::uint64_t last_seen,
                                                unsigned* count,
                                                abi::VgpuProcessUtilizationSample* samples) {
  return vgpu_device_call(
      "nvmlDeviceGetVgpuProcessUtilization", device, [&](const DeviceCall& call) {
        if (count == nullptr) return abi::kErrorInvalidArgument;
        const auto list = process_samples(call, last_seen);
        if (samples == nullptr) return size_check(call, list.size(), *count, false);
        if (*count == 0) return abi::kErrorInvalidArgument;
        if (list.empty()) return abi::kErrorNotFound;
        if (auto code = size_check(call, list.size(), *count, true); code != abi::kSuccess)
          return code;
        for (std::size_t i = 0; i < list.size(); ++i) {
          abi::VgpuProcessUtilizationSample& out = samples[i];
          out = abi::VgpuProcessUtilizationSample{};
          out.vgpu_instance = list[i].process->instance;
          out.pid = list[i].process->pid;
          std::strncpy(out.process_name, list[i].process->name.c_str(),
                       sizeof(out.process_name) - 1);
          out.time_stamp = call.stamp(list[i].time);
          out.sm_util = list[i].use.sm;
          out.mem_util = list[i].use.mem;
          out.enc_util = list[i].use.enc;
          out.dec_util = list[i].use.dec;
        }
        *count = static_cast<unsigned>(list.size());
        return abi::kSuccess;
      });
}

abi::Return nvmlDeviceGetVgpuProcessesUtilizationInfo(abi::Device device,
                                                      abi::VgpuProcessesUtilizationInfoV1* info) {
  return vgpu_device_call(
      "nvmlDeviceGetVgpuProcessesUtilizationInfo", device, [&](const DeviceCall& call) {
        if (info == nullptr) return abi::kErrorInvalidArgument;
        if (info->version != abi::kVgpuProcessesUtilizationInfoVersion)
          return abi::kErrorArgumentVersionMismatch;
        const auto list = process_samples(call, info->last_seen_time_stamp);
        if (info->vgpu_proc_util_array == nullptr)
          return size_check(call, list.size(), info->vgpu_process_count, false);
        if (list.empty()) return abi::kErrorNotFound;
        if (auto code = size_check(call, list.size(), info->vgpu_process_count, true);
            code != abi::kSuccess)
          return code;
        for (std::size_t i = 0; i < list.size(); ++i) {
          abi::VgpuProcessUtilizationInfoV1& out = info->vgpu_proc_util_array[i];
          out = abi::VgpuProcessUtilizationInfoV1{};
          std::strncpy(out.process_name, list[i].process->name.c_str(),
                       sizeof(out.process_name) - 1);
          out.time_stamp = call.stamp(list[i].time);
          out.vgpu_instance = list[i].process->instance;
          out.pid = list[i].process->pid;
          out.sm_util = list[i].use.sm;
          out.mem_util = list[i].use.mem;
          out.enc_util = list[i].use.enc;
          out.dec_util = list[i].use.dec;
          out.jpg_util = list[i].use.jpg;
          out.ofa_util = list[i].use.ofa;
        }
        info->vgpu_process_count = static_cast<unsigned>(list.size());
        return abi::kSuccess;
      });
}
