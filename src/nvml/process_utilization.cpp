// SPDX-License-Identifier: MIT
#include "nvml/process_utilization.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>

#include "nvml/convert.h"

namespace gpumeter::nvml {
namespace {

std::uint64_t last_seen_stamp(std::optional<TimeUs> last_seen_us) {
  return last_seen_us && *last_seen_us > 0 ? static_cast<std::uint64_t>(*last_seen_us) : 0;
}

PidGpuSample converted(const abi::ProcessUtilizationInfoV1& raw) {
  return {raw.pid,
          {.time_us = static_cast<TimeUs>(raw.time_stamp),
           .sm = raw.sm_util,
           .mem = raw.mem_util,
           .enc = raw.enc_util,
           .dec = raw.dec_util,
           .jpg = raw.jpg_util,
           .ofa = raw.ofa_util}};
}

PidGpuSample converted(const abi::ProcessUtilizationSample& raw) {
  return {raw.pid,
          {.time_us = static_cast<TimeUs>(raw.time_stamp),
           .sm = raw.sm_util,
           .mem = raw.mem_util,
           .enc = raw.enc_util,
           .dec = raw.dec_util}};
}

template <class Raw>
std::vector<PidGpuSample> newer_than(std::span<const Raw> raw, std::uint64_t last_seen) {
  std::vector<PidGpuSample> samples;
  samples.reserve(raw.size());
  for (const Raw& sample : raw) {
    if (sample.time_stamp <= last_seen || sample.time_stamp > kNewestStamp) continue;
    samples.push_back(converted(sample));
  }
  return samples;
}

// The answer to the sizing call (NULL array): how many elements to allocate; 0 when there is
// nothing newer to read.
std::expected<unsigned, Unavailable> first_need(CallResult code, unsigned count) {
  if (code && (*code == abi::kErrorNotFound || *code == abi::kSuccess)) return 0U;
  if (code && *code == abi::kErrorInsufficientSize) return count;
  return std::unexpected(DeviceQuery::succeeded(code).error());
}

// Both calls' sizing protocol around `fill(array, count)`, which passes `count` as the
// array's capacity and leaves in it what the driver answered (the need, or how many it wrote).
template <class Raw, class Fill>
Maybe<std::vector<Raw>> sized_drain(Fill fill) {
  unsigned count = 0;
  const CallResult first = fill(nullptr, count);
  auto need = first_need(first, count);
  if (!need) return std::unexpected(need.error());
  if (*need == 0) return std::vector<Raw>{};
  for (int attempt = 0; attempt < kUtilizationAttempts; ++attempt) {
    if (*need > kUtilizationMaxSamples) return std::unexpected(Unavailable::error);
    std::vector<Raw> raw(*need + kUtilizationSlack);
    count = static_cast<unsigned>(raw.size());
    const CallResult code = fill(raw.data(), count);
    if (code && *code == abi::kErrorInsufficientSize) {
      // More samples arrived meanwhile; never ask for less than what just fell short.
      *need = std::max(count, static_cast<unsigned>(raw.size()));
      continue;
    }
    if (code && *code == abi::kErrorNotFound) return std::vector<Raw>{};
    if (auto ok = DeviceQuery::succeeded(code); !ok) return std::unexpected(ok.error());
    raw.resize(std::min<std::size_t>(count, raw.size()));
    return raw;
  }
  return std::unexpected(Unavailable::error);
}

// nvmlDeviceGetProcessesUtilizationInfo. `refused` is set when the driver did not understand
// the call, so that the older one is worth trying.
Maybe<std::vector<PidGpuSample>> drain_info(DeviceQuery& query, std::uint64_t last_seen,
                                            bool& refused) {
  const auto& entry = query.api().processes_utilization_info;
  auto fill = [&](abi::ProcessUtilizationInfoV1* array, unsigned& count) {
    abi::ProcessesUtilizationInfoV1 info{abi::kProcessesUtilizationInfoVersion, count, last_seen,
                                         array};
    const CallResult code = query.invoke(entry, &info);
    count = info.process_samples_count;
    if (code && means_try_older_call(*code)) refused = true;
    return code;
  };
  auto raw = sized_drain<abi::ProcessUtilizationInfoV1>(fill);
  if (!raw) return std::unexpected(raw.error());
  return newer_than<abi::ProcessUtilizationInfoV1>(*raw, last_seen);
}

// nvmlDeviceGetProcessUtilization.
Maybe<std::vector<PidGpuSample>> drain_samples(DeviceQuery& query, std::uint64_t last_seen) {
  const auto& entry = query.api().process_utilization;
  auto fill = [&](abi::ProcessUtilizationSample* array, unsigned& count) {
    return query.invoke(entry, array, &count, last_seen);
  };
  auto raw = sized_drain<abi::ProcessUtilizationSample>(fill);
  if (!raw) return std::unexpected(raw.error());
  return newer_than<abi::ProcessUtilizationSample>(*raw, last_seen);
}

}  // namespace

Maybe<std::vector<PidGpuSample>> read_process_utilization(DeviceQuery& query,
                                                          std::optional<TimeUs> last_seen_us) {
  const std::uint64_t last_seen = last_seen_stamp(last_seen_us);
  if (query.api().processes_utilization_info) {
    bool refused = false;
    auto samples = drain_info(query, last_seen, refused);
    if (samples || !refused) return samples;
  }
  return drain_samples(query, last_seen);
}

}  // namespace gpumeter::nvml
