// SPDX-License-Identifier: MIT
#include "nvml/device_samples.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "nvml/convert.h"

namespace gpumeter::nvml {
namespace {

abi::SamplingType sampling_type(DeviceBuffer buffer) noexcept {
  return buffer == DeviceBuffer::power ? abi::kTotalPowerSamples : abi::kGpuUtilizationSamples;
}

// The driver's unit to the model's: power samples are mW.
double model_value(DeviceBuffer buffer, const abi::Sample& raw, abi::ValueType type) noexcept {
  const double value = value_as_double(raw.value, type);
  return buffer == DeviceBuffer::power ? value / 1000.0 : value;
}

// The answer of a call that may say "nothing newer": SUCCESS, or NOT_FOUND as nothing.
Maybe<bool> found(CallResult code) noexcept {
  if (code && *code == abi::kErrorNotFound) return false;
  if (auto ok = DeviceQuery::succeeded(code); !ok) return std::unexpected(ok.error());
  return true;
}

}  // namespace

Maybe<std::vector<BufferedSample>> read_device_samples(DeviceQuery& query, DeviceBuffer buffer,
                                                       std::optional<TimeUs> last_seen_us) {
  const std::uint64_t last_seen =
      last_seen_us && *last_seen_us > 0 ? static_cast<std::uint64_t>(*last_seen_us) : 0;
  const abi::SamplingType type = sampling_type(buffer);
  abi::ValueType value_type = abi::kValueTypeUnsignedInt;
  unsigned count = 0;
  const Maybe<bool> sized =
      found(query.invoke(query.api().samples, type, last_seen, &value_type, &count, nullptr));
  if (!sized) return std::unexpected(sized.error());
  if (!*sized || count == 0) return std::vector<BufferedSample>{};
  if (count > kDeviceSampleMaxCount) return std::unexpected(Unavailable::error);
  std::vector<abi::Sample> raw(count + kDeviceSampleSlack);
  count = static_cast<unsigned>(raw.size());
  const Maybe<bool> read =
      found(query.invoke(query.api().samples, type, last_seen, &value_type, &count, raw.data()));
  if (!read) return std::unexpected(read.error());
  std::vector<BufferedSample> samples;
  if (!*read) return samples;
  raw.resize(std::min<std::size_t>(count, raw.size()));
  samples.reserve(raw.size());
  for (const abi::Sample& entry : raw) {
    if (entry.time_stamp <= last_seen || entry.time_stamp > kNewestStamp) continue;
    samples.push_back(
        {static_cast<TimeUs>(entry.time_stamp), model_value(buffer, entry, value_type)});
  }
  return samples;
}

}  // namespace gpumeter::nvml
