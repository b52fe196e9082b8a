// SPDX-License-Identifier: MIT
// The scenario model: a simulated machine's driver, GPUs, processes and faults, as read
// from a scenario file (the format is documented in docs/scenarios.md). Plain data; what
// each device and process reads at a given time is timeline.h.
//
// Scenario time t is in seconds since the scenario's epoch (see clock.h); negative times
// are before it.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "nvml/abi.h"
#include "sim/call_costs.h"
#include "sim/features.h"
#include "sim/profile.h"

namespace gpumeter::sim {

struct DriverSpec {
  // What each call costs, in ms, by function name (sim/call_costs.h); empty: nothing.
  CallCosts call_costs;
  std::string driver_version = "570.124.06";
  std::string nvml_version = "12.570.124.06";
  int cuda_driver_version = 12080;  // 1000 * major + 10 * minor
  // Whether root-only calls (setting the accounting mode, clearing its records, clearing a
  // vGPU instance's accounting) succeed: true for every caller, false for none (a caller
  // without root, even when run as root); absent: for root (effective uid 0) only.
  std::optional<bool> privileged;
};

struct PciSpec {
  std::string bus_id;  // "00000000:06:00.0" (8-digit domain, upper case)
  std::uint32_t domain = 0;
  std::uint32_t bus = 0;
  std::uint32_t device = 0;
  std::uint32_t device_id = 0;  // device id high 16 bits, vendor 0x10DE low 16 bits
  std::uint32_t subsystem_id = 0;
  unsigned link_generation = 3;  // current = max
  unsigned link_width = 16;
  double tx_kbps_at_full_load = 0;  // PCIe throughput scales with utilisation
  double rx_kbps_at_full_load = 0;
};

// Clocks in MHz, by nvmlClockType_t.
struct Clocks {
  unsigned graphics = 0;
  unsigned sm = 0;
  unsigned memory = 0;
  unsigned video = 0;
};

// A value that goes from `idle` at 0 % utilisation to `busy` at 100 %, linearly.
struct Range {
  double idle = 0;
  double busy = 0;
  double at(double utilization_percent) const {
    return idle + (busy - idle) * utilization_percent / 100.0;
  }
};

// One MIG device: a compute instance inside a GPU instance, as nvidia-smi lists them.
struct MigInstanceSpec {
  int line = 0;
  unsigned slot = 0;  // its index for nvmlDeviceGetMigDeviceHandleByIndex
  std::uint32_t gpu_instance = 0;
  std::uint32_t compute_instance = 0;
  std::string profile;  // "1g.10gb"
  std::uint64_t memory_total_bytes = 0;
  std::string uuid;  // "MIG-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
};

// A GPU in MIG mode: its instances in slots 0 .. max_count-1; empty slots are NOT_FOUND.
struct MigSpec {
  unsigned max_count = 7;
  std::vector<MigInstanceSpec> instances;

  const MigInstanceSpec* in_slot(unsigned slot) const {
    for (const MigInstanceSpec& instance : instances) {
      if (instance.slot == slot) return &instance;
    }
    return nullptr;
  }
};

// How GPM's figures follow the scripted utilisation (docs/mig.md): SM activity is the SM
// utilisation; occupancy and tensor activity are these fractions of it; NVLink rates scale
// from these at 100 % SM.
struct GpmSpec {
  double sm_occupancy_ratio = 0.5;
  double tensor_ratio = 0.25;
  double nvlink_tx_mib_per_s = 0;
  double nvlink_rx_mib_per_s = 0;
};

struct DeviceSpec {
  int line = 0;  // where the device is described, for messages
  std::string name;
  std::string uuid;  // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  std::string serial;
  PciSpec pci;
  unsigned minor_number = 0;
  std::uint32_t architecture = 0xFFFFFFFF;  // nvmlDeviceArchitecture_t value
  int cc_major = 0;
  int cc_minor = 0;
  std::uint64_t memory_total_bytes = 0;
  std::uint64_t memory_reserved_bytes = 0;
  Clocks clocks;      // at idle
  Clocks max_clocks;  // current clocks reach these at 100 % utilisation
  Range power_w;      // idle draw to the power limit
  double power_limit_w = 0;
  Range fan_percent;
  Range temperature_c;
  unsigned slowdown_temperature_c = 0;
  unsigned pstate_idle = 8;
  unsigned pstate_busy = 0;
  std::uint64_t ecc_corrected = 0;
  std::uint64_t ecc_uncorrected = 0;
  // Since the driver loaded: the lifetime counts unless the scenario says otherwise.
  std::uint64_t ecc_volatile_corrected = 0;
  std::uint64_t ecc_volatile_uncorrected = 0;
  // "health": the link's replays and, from Ampere on, the rows remapped (docs/scenarios.md).
  unsigned pcie_replays = 0;
  unsigned remapped_corrected = 0;
  unsigned remapped_uncorrected = 0;
  bool remap_pending = false;
  bool remap_failed = false;
  // Before Ampere: pages retired for repeated single-bit and for double-bit errors.
  unsigned retired_single_bit = 0;
  unsigned retired_double_bit = 0;
  bool retirement_pending = false;
  std::uint32_t compute_mode = 0;  // nvmlComputeMode_t
  bool persistence_mode = true;
  std::int64_t sample_period_us = 166'667;  // the driver's utilisation sample period
  double sample_buffer_s = 20;              // how far back nvmlDeviceGetSamples reaches
  unsigned process_sample_capacity = 100;   // per-process samples the driver keeps
  double energy_offset_mj = 0;              // energy counter at the epoch
  bool accounting_enabled = false;
  unsigned accounting_buffer_size = 4000;
  bool mig_capable = false;                            // MIG mode readable
  std::optional<MigSpec> mig;                          // MIG enabled, with these instances
  GpmSpec gpm;                                         // Hopper and newer only
  std::optional<Profile> scripted_gpu_utilization;     // else: sum of processes' sm
  std::optional<Profile> scripted_memory_utilization;  // else: sum of processes' mem
  FeatureSet unsupported;

  // A MIG-enabled GPU answers NOT_SUPPORTED for whole-GPU utilisation (mig_restricted).
  bool supports(Feature feature) const {
    return !unsupported.test(bit(feature)) && !(mig && mig_restricted(feature));
  }
};

// Row remapping replaced page retirement from Ampere on; each board has one of the two.
inline bool remaps_rows(const DeviceSpec& device) {
  return device.architecture >= nvml::abi::kArchAmpere &&
         device.architecture != nvml::abi::kArchUnknown;
}

// Whether a GPU runs in MIG mode: its utilisation and accounting calls are then refused
// (accounting mode reads DISABLED and cannot be changed).
inline bool mig_enabled(const DeviceSpec& device) {
  return device.mig.has_value();
}

// Where a process runs on a MIG-enabled GPU.
struct MigPlacement {
  std::uint32_t gpu_instance = 0;
  std::uint32_t compute_instance = 0;
};

struct ProcessTypes {
  bool compute = false;
  bool graphics = false;
  bool mps = false;
};

struct ContainerSpec {
  std::string runtime;
  std::string id;
};

// What the host knows about a process, for `gpumeter --simulate`.
struct HostSpec {
  bool hidden = false;  // its owner cannot be seen (another container, hidepid)
  std::string user;
  std::optional<std::uint32_t> uid;
  std::vector<std::string> command;
  double started_s = 0;  // scenario time the process started
  std::optional<ContainerSpec> container;
};

struct ProcessSpec {
  int line = 0;
  std::size_t device = 0;
  std::uint32_t pid = 0;  // 0 when the pid comes from `pid_file`
  // A file that holds the pid of a real process, read on every call (timeline.h): the process
  // is on the GPU only while the file names a live process. Empty for a fixed pid.
  std::string pid_file;
  ProcessTypes types;
  std::string name;                     // nvmlSystemGetProcessName; empty: from the host
  std::optional<Profile> memory_bytes;  // absent: usedGpuMemory is "not available"
  Profile sm, mem, enc, dec;            // percent
  double start_s = 0;
  double end_s = std::numeric_limits<double>::infinity();
  std::optional<HostSpec> host;
  std::optional<MigPlacement> mig;  // on a MIG-enabled GPU: the instance it runs in
  // A real process (its pid from pid_env or pid_file), which /proc describes. Any other pid is
  // the scenario's alone: never looked up in /proc, where it may belong to an unrelated process.
  bool real = false;

  bool alive(double t) const { return start_s <= t && t < end_s; }
};

struct LostFault {
  std::size_t device = 0;
  double at_s = 0;
};

// An XID error the driver reports on a GPU at a scripted time (nvmlEventSetWait_v2).
struct XidFault {
  std::size_t device = 0;
  double at_s = 0;
  std::uint64_t code = 0;  // 79: fallen off the bus, 48: double-bit ECC, 13: graphics exception
};

// Every `every`-th call of each named function fails with `code` (deterministic).
struct FlakyFault {
  std::vector<std::string> functions;
  unsigned every = 1;
  std::uint32_t code = 999;
  std::optional<std::size_t> device;  // only calls on this device
};

struct Faults {
  std::optional<std::uint32_t> init_code;  // nvmlInit answers this
  // nvmlInit answers DRIVER_NOT_LOADED while the calling process is younger than this, in
  // seconds: a driver that finishes loading after the process started.
  double init_fails_for_s = 0;
  std::vector<LostFault> lost;
  std::vector<XidFault> xid;  // in time order
  std::vector<FlakyFault> flaky;
};

// ---- vGPU host (docs/vgpu.md) -------------------------------------------------------------
struct VgpuLicenseSpec {
  std::uint32_t state = 5;         // NVML_GRID_LICENSE_STATE_* (5 licensed)
  std::uint8_t expiry_status = 3;  // NVML_GRID_LICENSE_EXPIRY_* (3 not applicable)
  // "YYYY-MM-DDTHH:MM:SSZ" split into fields; all zero without an expiry.
  unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  bool licensed() const { return state == 5; }
};

// One process record of an instance's accounting (nvmlVgpuInstanceGetAccountingStats).
struct VgpuAccountingSpec {
  std::uint32_t pid = 0;
  unsigned gpu_utilization = 0;
  unsigned memory_utilization = 0;
  std::uint64_t max_memory_bytes = 0;
  double start_s = 0;
  double end_s = std::numeric_limits<double>::infinity();  // running while t < end_s
};

struct VgpuInstanceSpec {
  int line = 0;
  std::size_t device = 0;
  std::uint32_t id = 0;  // nvmlVgpuInstance_t, never 0, unique in the scenario
  std::string uuid;
  std::string vm_id;
  std::uint32_t vm_id_type = 1;  // 0 domain id, 1 UUID
  std::uint32_t type_id = 0;
  std::string type_name;  // "NVIDIA A16-4Q"
  Profile fb_used_bytes;
  VgpuLicenseSpec license;
  bool guest_driver = true;  // licence and accounting calls need the guest's driver
  bool accounting_enabled = false;
  std::vector<VgpuAccountingSpec> accounting;
  double start_s = 0;
  double end_s = std::numeric_limits<double>::infinity();
  // Hidden until the first sizing call on its GPU has been answered, so that a reader sees
  // the count grow between sizing and reading.
  bool appears_after_sizing = false;

  bool alive(double t) const { return start_s <= t && t < end_s; }
};

// A process inside a VM, by the instance it runs on.
struct VgpuProcessSpec {
  int line = 0;
  std::uint32_t instance = 0;
  std::uint32_t pid = 0;  // inside the VM
  std::string name;
  Profile sm, mem, enc, dec, jpg, ofa;  // percent
  double start_s = 0;
  double end_s = std::numeric_limits<double>::infinity();

  bool alive(double t) const { return start_s <= t && t < end_s; }
};

struct VgpuSpec {
  std::vector<std::size_t> hosts;  // devices in vGPU host mode
  std::vector<VgpuInstanceSpec> instances;
  std::vector<VgpuProcessSpec> processes;

  bool is_host(std::size_t device) const {
    for (std::size_t h : hosts)
      if (h == device) return true;
    return false;
  }
};

// The kernel files' layout of a Jetson board generation (docs/jetson.md): Orin on L4T 36
// (INA3221 through hwmon, devfreq 17000000.gpu, BPMP's EMC clock), or Nano on L4T 32 (INA3221
// through iio, devfreq 57000000.gpu, NvMapMemUsed in /proc/meminfo).
enum class JetsonLayout : std::uint8_t { orin_nano, nano };

// `"jetson"`: the scenario is a Jetson board whose one device is its integrated GPU. `gpumeter
// --simulate-jetson` writes the board's kernel files for it (sim/jetson_tree.h); NVML is absent.
struct JetsonSpec {
  int line = 0;
  JetsonLayout layout = JetsonLayout::orin_nano;
  std::string serial;   // the module's serial number (device tree)
  std::string release;  // nv_tegra_release's "R36 (release), REVISION: 4.7"
};

struct Scenario {
  std::string file;
  std::string description;
  std::optional<JetsonSpec> jetson;
  DriverSpec driver;
  std::vector<DeviceSpec> devices;
  std::vector<ProcessSpec> processes;
  Faults faults;
  VgpuSpec vgpu;
};

// The largest scenario file read (the 8-GPU, 512-process benchmark takes 140 KiB).
inline constexpr std::size_t kMaxScenarioBytes = std::size_t{16} << 20U;

// Reads and checks a scenario file (at most kMaxScenarioBytes, nested at most 64 deep). `pid_env`
// names are resolved from this process's environment. Errors: ErrorCode::invalid_input "FILE:LINE:
// what was expected", or ErrorCode::io when the file cannot be read.
std::expected<Scenario, Error> load_scenario(const std::filesystem::path& path);

// The same, from text; `file` is used in messages.
std::expected<Scenario, Error> parse_scenario(std::string_view text, std::string_view file);

}  // namespace gpumeter::sim
