// SPDX-License-Identifier: MIT
#include "nvml/processes.h"

#include <cstddef>
#include <cstring>
#include <map>
#include <span>

#include "nvml/convert.h"
#include "nvml/device_reader.h"

namespace gpumeter::nvml {
namespace {

constexpr std::byte kSentinel{0xA5};
// The last field of every assumed layout (an id or a byte count) never has all its top
// bytes equal to the sentinel, so a correct driver ends its writes within this many bytes
// of count * element size.
constexpr std::size_t kLastFieldBytes = 4;

std::optional<MigInstance> mig_of(std::uint32_t gpu_instance, std::uint32_t compute_instance) {
  if (gpu_instance == abi::kValueNotAvailableU32 ||
      compute_instance == abi::kValueNotAvailableU32) {
    return std::nullopt;
  }
  return MigInstance{gpu_instance, compute_instance};
}

ListedProcess decode(std::span<const std::byte> element) {
  if (element.size() == sizeof(abi::ProcessInfoV1)) {
    abi::ProcessInfoV1 info{};
    std::memcpy(&info, element.data(), sizeof info);
    return {info.pid, optional_bytes(info.used_gpu_memory), std::nullopt};
  }
  abi::ProcessInfoV2 info{};
  std::memcpy(&info, element.data(), sizeof info);
  return {info.pid, optional_bytes(info.used_gpu_memory),
          mig_of(info.gpu_instance_id, info.compute_instance_id)};
}

// One past the last byte that no longer holds the sentinel.
std::size_t written_end(std::span<const std::byte> buffer) {
  std::size_t end = buffer.size();
  while (end > 0 && buffer[end - 1] == kSentinel) --end;
  return end;
}

bool layout_matches(std::span<const std::byte> buffer, std::size_t count, std::size_t stride) {
  const std::size_t end = written_end(buffer);
  const std::size_t expected = count * stride;
  if (count == 0) return end == 0;
  return end <= expected && end + kLastFieldBytes > expected;
}

Maybe<std::vector<ListedProcess>> decode_all(std::span<const std::byte> buffer, unsigned count,
                                             std::size_t stride) {
  if (count * stride > buffer.size() || !layout_matches(buffer, count, stride)) {
    return std::unexpected(Unavailable::error);
  }
  std::vector<ListedProcess> listed;
  listed.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    listed.push_back(decode(buffer.subspan(i * stride, stride)));
  return listed;
}

// The first call, with no buffer: the count needed, 0 for an empty list.
std::expected<unsigned, Unavailable> size_needed(DeviceQuery& query,
                                                 const Entry<abi::DeviceProcessesFn>& entry) {
  unsigned need = 0;
  const CallResult code = query.invoke(entry, &need, nullptr);
  if (code && *code == abi::kSuccess) return 0u;
  if (code && *code == abi::kErrorInsufficientSize) return need;
  return std::unexpected(DeviceQuery::succeeded(code).error());
}

}  // namespace

Maybe<std::vector<ListedProcess>> read_process_list(DeviceQuery& query,
                                                    const Entry<abi::DeviceProcessesFn>& entry) {
  const std::size_t stride = process_element_size(entry);
  auto need = size_needed(query, entry);
  if (!need) return std::unexpected(need.error());
  if (*need == 0) return std::vector<ListedProcess>{};
  for (int attempt = 0; attempt < kProcessListAttempts; ++attempt) {
    unsigned count = *need + kProcessListSlack;
    std::vector<std::byte> buffer(count * stride, kSentinel);
    const CallResult code = query.invoke(entry, &count, static_cast<void*>(buffer.data()));
    if (code && *code == abi::kErrorInsufficientSize) {
      *need = count;
      continue;
    }
    if (auto ok = DeviceQuery::succeeded(code); !ok) return std::unexpected(ok.error());
    return decode_all(buffer, count, stride);
  }
  return std::unexpected(Unavailable::error);
}

namespace {

// One list's processes into the merged map. A process in several lists keeps the first
// memory figure and MIG instance that were known: every list reports the same process.
void merge_into(std::map<Pid, GpuProcess>& by_pid, const std::vector<ListedProcess>& listed,
                bool ProcessContexts::* context) {
  for (const ListedProcess& entry : listed) {
    GpuProcess& process = by_pid[entry.pid];
    process.pid = entry.pid;
    process.contexts.*context = true;
    if (!process.used_memory_bytes && entry.used_memory_bytes) {
      process.used_memory_bytes = entry.used_memory_bytes;
    }
    if (!process.mig) process.mig = entry.mig;
  }
}

struct ProcessList {
  const Entry<abi::DeviceProcessesFn>& entry;
  bool ProcessContexts::* context;
};

}  // namespace

Maybe<std::vector<GpuProcess>> read_processes(DeviceQuery& query) {
  const EntryPoints& api = query.api();
  const ProcessList lists[] = {{api.compute_processes, &ProcessContexts::compute},
                               {api.graphics_processes, &ProcessContexts::graphics},
                               {api.mps_processes, &ProcessContexts::mps}};
  std::map<Pid, GpuProcess> by_pid;
  bool any_supported = false;
  for (const ProcessList& list : lists) {
    auto listed = read_process_list(query, list.entry);
    if (!listed && listed.error() == Unavailable::not_supported) continue;
    if (!listed) return std::unexpected(listed.error());
    any_supported = true;
    merge_into(by_pid, *listed, list.context);
  }
  if (!any_supported) return std::unexpected(Unavailable::not_supported);
  std::vector<GpuProcess> processes;
  processes.reserve(by_pid.size());
  for (auto& [pid, process] : by_pid) processes.push_back(std::move(process));
  return processes;
}

}  // namespace gpumeter::nvml
