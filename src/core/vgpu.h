// SPDX-License-Identifier: MIT
// A vGPU host's view of one physical GPU: its vGPU instances (one per VM) and the processes
// running inside those VMs (docs/vgpu.md). Plain types; times are µs since the Unix epoch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/unavailable.h"

namespace gpumeter {

// How the hypervisor names the VM.
enum class VmIdKind : std::uint8_t { domain_id, uuid };

enum class LicenseState : std::uint8_t {
  unknown,
  uninitialized,
  unlicensed_unrestricted,
  unlicensed_restricted,
  unlicensed,
  licensed,
};

// What the driver says about the licence's expiry.
enum class LicenseExpiryKind : std::uint8_t {
  not_available,
  invalid,
  valid,  // `expiry_us` holds the time
  not_applicable,
  permanent,
};

struct VgpuLicense {
  bool licensed = false;
  // Absent when only the old call (licensed yes/no) answered.
  Maybe<LicenseState> state = std::unexpected(Unavailable::not_supported);
  Maybe<LicenseExpiryKind> expiry_kind = std::unexpected(Unavailable::not_supported);
  std::optional<std::int64_t> expiry_us;  // when expiry_kind is valid
};

// Utilisation of a vGPU instance over the driver's sample period that ends at time_us,
// percent. jpg and ofa come only from the 550+ call; the older one leaves them absent.
struct VgpuUtilization {
  std::int64_t time_us = 0;
  double sm = 0;
  double memory = 0;  // frame-buffer (memory controller) activity
  double encoder = 0;
  double decoder = 0;
  Maybe<double> jpeg = std::unexpected(Unavailable::not_supported);
  Maybe<double> ofa = std::unexpected(Unavailable::not_supported);
};

// One process record of an instance's accounting (lifetime figures).
struct VgpuAccountingRecord {
  std::uint32_t pid = 0;
  Maybe<double> gpu_utilization = std::unexpected(Unavailable::not_supported);     // percent
  Maybe<double> memory_utilization = std::unexpected(Unavailable::not_supported);  // percent
  Maybe<std::uint64_t> max_memory_bytes = std::unexpected(Unavailable::not_supported);
  std::int64_t start_us = 0;
  std::optional<std::int64_t> duration_us;  // absent while it runs
  bool running = false;
};

struct VgpuAccounting {
  bool enabled = false;
  // Absent with its reason when accounting is off or the records cannot be read.
  Maybe<std::vector<VgpuAccountingRecord>> records = std::unexpected(Unavailable::not_supported);
};

struct VgpuInstance {
  std::uint32_t id = 0;  // the driver's instance id, stable while the VM runs
  Maybe<std::string> uuid = std::unexpected(Unavailable::error);
  Maybe<std::string> vm_id = std::unexpected(Unavailable::error);
  Maybe<VmIdKind> vm_id_kind = std::unexpected(Unavailable::error);
  Maybe<std::uint32_t> type_id = std::unexpected(Unavailable::error);
  Maybe<std::string> type_name = std::unexpected(Unavailable::error);  // "NVIDIA A16-4Q"
  Maybe<std::uint64_t> fb_used_bytes = std::unexpected(Unavailable::error);
  Maybe<VgpuLicense> license = std::unexpected(Unavailable::error);
  // The newest sample seen; no_data before the driver has one for this instance.
  Maybe<VgpuUtilization> utilization = std::unexpected(Unavailable::no_data);
  Maybe<VgpuAccounting> accounting = std::unexpected(Unavailable::error);
};

// A process inside a VM, with its newest utilisation sample.
struct VgpuProcess {
  std::uint32_t instance = 0;
  std::uint32_t pid = 0;  // inside the VM
  std::string name;
  VgpuUtilization utilization;
};

struct VgpuHost {
  std::vector<VgpuInstance> instances;
  // Processes busy in the sample periods since the previous read (all buffered ones on the
  // first read); absent with its reason when they cannot be read.
  Maybe<std::vector<VgpuProcess>> processes = std::vector<VgpuProcess>{};
};

// "licensed", "unlicensed_restricted", ...
const char* to_string(LicenseState state) noexcept;
const char* to_string(LicenseExpiryKind kind) noexcept;
const char* to_string(VmIdKind kind) noexcept;

}  // namespace gpumeter
