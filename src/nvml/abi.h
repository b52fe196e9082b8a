// SPDX-License-Identifier: MIT
// Our own declarations of the subset of NVML's C ABI that gpumeter uses (x86-64 Linux).
//
// Only src/nvml/ (the loader and the backend) and src/sim/ (the simulated library) include
// this header; nothing above the backend sees these types. Every struct is pinned with
// static_asserts to the layouts in the project's NVML reference: a wrong offset here is
// silent corruption, so a change that breaks one of them must not compile.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace gpumeter::nvml::abi {

// C enums are 4 bytes in the ABI; they must not shrink.
// NOLINTBEGIN(performance-enum-size)

// nvmlReturn_t: a 4-byte C enum.
enum Return : std::uint32_t {
  kSuccess = 0,
  kErrorUninitialized = 1,
  kErrorInvalidArgument = 2,
  kErrorNotSupported = 3,
  kErrorNoPermission = 4,
  kErrorAlreadyInitialized = 5,
  kErrorNotFound = 6,
  kErrorInsufficientSize = 7,
  kErrorInsufficientPower = 8,
  kErrorDriverNotLoaded = 9,
  kErrorTimeout = 10,
  kErrorIrqIssue = 11,
  kErrorLibraryNotFound = 12,
  kErrorFunctionNotFound = 13,
  kErrorCorruptedInforom = 14,
  kErrorGpuIsLost = 15,
  kErrorResetRequired = 16,
  kErrorOperatingSystem = 17,
  kErrorLibRmVersionMismatch = 18,
  kErrorInUse = 19,
  kErrorMemory = 20,
  kErrorNoData = 21,
  kErrorVgpuEccNotSupported = 22,
  kErrorInsufficientResources = 23,
  kErrorFreqNotSupported = 24,
  kErrorArgumentVersionMismatch = 25,
  kErrorDeprecated = 26,
  kErrorNotReady = 27,
  kErrorGpuNotFound = 28,
  kErrorInvalidState = 29,
  kErrorResetTypeNotSupported = 30,
  kErrorUnknown = 999,
};

// nvmlDevice_t: GPU and MIG handles alike, opaque pointers owned by the library.
struct DeviceOpaque;
using Device = DeviceOpaque*;

// All ones in an unsigned field: NVML_VALUE_NOT_AVAILABLE.
inline constexpr std::uint32_t kValueNotAvailableU32 = 0xFFFFFFFFu;
inline constexpr std::uint64_t kValueNotAvailableU64 = 0xFFFFFFFFFFFFFFFFull;

// Buffer sizes, including the terminating NUL.
inline constexpr unsigned kDeviceNameBufferSize = 96;  // NAME_V2
inline constexpr unsigned kDeviceUuidBufferSize = 96;  // UUID_V2
inline constexpr unsigned kDeviceSerialBufferSize = 30;
inline constexpr unsigned kSystemDriverVersionBufferSize = 80;
inline constexpr unsigned kSystemNvmlVersionBufferSize = 80;
inline constexpr unsigned kProcessNameBufferSize = 256;

// Init flags for nvmlInitWithFlags.
inline constexpr unsigned kInitFlagNoGpus = 1;
inline constexpr unsigned kInitFlagNoAttach = 2;

// nvmlClockType_t
enum ClockType : std::uint32_t { kClockGraphics = 0, kClockSm = 1, kClockMem = 2, kClockVideo = 3 };
// nvmlTemperatureSensors_t
enum TemperatureSensor : std::uint32_t { kTemperatureGpu = 0 };
// nvmlPcieUtilCounter_t
enum PcieUtilCounter : std::uint32_t { kPcieTxBytes = 0, kPcieRxBytes = 1 };
// nvmlPstates_t: 0..15, 32 unknown.
inline constexpr std::uint32_t kPstateUnknown = 32;
// nvmlComputeMode_t
enum ComputeMode : std::uint32_t {
  kComputeModeDefault = 0,
  kComputeModeExclusiveThread = 1,
  kComputeModeProhibited = 2,
  kComputeModeExclusiveProcess = 3,
};
// nvmlEnableState_t
enum EnableState : std::uint32_t { kFeatureDisabled = 0, kFeatureEnabled = 1 };
// nvmlMemoryErrorType_t and nvmlEccCounterType_t
enum MemoryErrorType : std::uint32_t { kMemoryErrorCorrected = 0, kMemoryErrorUncorrected = 1 };
enum EccCounterType : std::uint32_t { kVolatileEcc = 0, kAggregateEcc = 1 };
// nvmlPageRetirementCause_t
enum PageRetirementCause : std::uint32_t {
  kRetiredMultipleSingleBit = 0,
  kRetiredDoubleBit = 1,
};

// nvmlEventSet_t: an opaque pointer owned by the library.
struct EventSetOpaque;
using EventSet = EventSetOpaque*;
// nvmlEventType* bits (unsigned long long masks).
inline constexpr std::uint64_t kEventTypeXidCriticalError = 0x8;

// nvmlEventData_t as nvmlEventSetWait_v2 fills it (the v1 call's struct lacks the instance
// ids). eventData is the XID code for an XID event.
struct EventData {
  Device device;
  std::uint64_t event_type;
  std::uint64_t event_data;
  std::uint32_t gpu_instance_id;
  std::uint32_t compute_instance_id;
};
static_assert(sizeof(EventData) == 32 && offsetof(EventData, event_type) == 8);
static_assert(offsetof(EventData, event_data) == 16 && offsetof(EventData, gpu_instance_id) == 24);
static_assert(offsetof(EventData, compute_instance_id) == 28);

// nvmlSamplingType_t
enum SamplingType : std::uint32_t {
  kTotalPowerSamples = 0,
  kGpuUtilizationSamples = 1,
  kMemoryUtilizationSamples = 2,
  kEncUtilizationSamples = 3,
  kDecUtilizationSamples = 4,
  kProcessorClkSamples = 5,
  kMemoryClkSamples = 6,
  kModulePowerSamples = 7,
  kJpgUtilizationSamples = 8,
  kOfaUtilizationSamples = 9,
};

// nvmlValueType_t
enum ValueType : std::uint32_t {
  kValueTypeDouble = 0,
  kValueTypeUnsignedInt = 1,
  kValueTypeUnsignedLong = 2,
  kValueTypeUnsignedLongLong = 3,
  kValueTypeSignedLongLong = 4,
  kValueTypeSignedInt = 5,
  kValueTypeUnsignedShort = 6,
};

// nvmlDeviceArchitecture_t values (#defines in the vendor header).
inline constexpr std::uint32_t kArchKepler = 2;
inline constexpr std::uint32_t kArchMaxwell = 3;
inline constexpr std::uint32_t kArchPascal = 4;
inline constexpr std::uint32_t kArchVolta = 5;
inline constexpr std::uint32_t kArchTuring = 6;
inline constexpr std::uint32_t kArchAmpere = 7;
inline constexpr std::uint32_t kArchAda = 8;
inline constexpr std::uint32_t kArchHopper = 9;
inline constexpr std::uint32_t kArchBlackwell = 10;
inline constexpr std::uint32_t kArchOrin = 11;
inline constexpr std::uint32_t kArchRubin = 13;
inline constexpr std::uint32_t kArchUnknown = 0xFFFFFFFFu;

// MIG mode values.
inline constexpr unsigned kMigDisable = 0;
inline constexpr unsigned kMigEnable = 1;

// Version words of versioned structs: sizeof(struct) | (N << 24).
constexpr std::uint32_t struct_version(std::size_t size, std::uint32_t n) {
  return static_cast<std::uint32_t>(size) | (n << 24);
}

// nvmlPciInfo_t, v3 layout (68 bytes). v1/v2 write the 52-byte legacy layout whose first
// 36 bytes are identical, so a 68-byte buffer is safe for every version.
struct PciInfo {
  char bus_id_legacy[16];
  std::uint32_t domain;
  std::uint32_t bus;
  std::uint32_t device;
  std::uint32_t pci_device_id;  // device id high 16 bits, vendor id low 16 bits
  std::uint32_t pci_subsystem_id;
  char bus_id[32];  // "00000000:19:00.0"
};
static_assert(sizeof(PciInfo) == 68 && alignof(PciInfo) == 4);
static_assert(offsetof(PciInfo, domain) == 16);
static_assert(offsetof(PciInfo, bus) == 20);
static_assert(offsetof(PciInfo, device) == 24);
static_assert(offsetof(PciInfo, pci_device_id) == 28);
static_assert(offsetof(PciInfo, pci_subsystem_id) == 32);
static_assert(offsetof(PciInfo, bus_id) == 36);

// Legacy (v1/v2) PCI info, 52 bytes: written by nvmlDeviceGetPciInfo and _v2.
struct PciInfoLegacy {
  char bus_id[16];
  std::uint32_t domain;
  std::uint32_t bus;
  std::uint32_t device;
  std::uint32_t pci_device_id;
  std::uint32_t pci_subsystem_id;
  std::uint32_t reserved[4];
};
static_assert(sizeof(PciInfoLegacy) == 52 && offsetof(PciInfoLegacy, reserved) == 36);

// nvmlUtilization_t
struct Utilization {
  std::uint32_t gpu;
  std::uint32_t memory;
};
static_assert(sizeof(Utilization) == 8 && offsetof(Utilization, memory) == 4);

// nvmlMemory_t (v1): used includes reserved memory.
struct Memory {
  std::uint64_t total;
  std::uint64_t free;
  std::uint64_t used;
};
static_assert(sizeof(Memory) == 24 && alignof(Memory) == 8);
static_assert(offsetof(Memory, free) == 8 && offsetof(Memory, used) == 16);

// nvmlMemory_v2_t: used excludes reserved. The caller must set version = kMemoryV2Version.
struct MemoryV2 {
  std::uint32_t version;
  std::uint64_t total;
  std::uint64_t reserved;
  std::uint64_t free;
  std::uint64_t used;
};
static_assert(sizeof(MemoryV2) == 40 && alignof(MemoryV2) == 8);
static_assert(offsetof(MemoryV2, total) == 8 && offsetof(MemoryV2, reserved) == 16);
static_assert(offsetof(MemoryV2, free) == 24 && offsetof(MemoryV2, used) == 32);
inline constexpr std::uint32_t kMemoryV2Version = struct_version(sizeof(MemoryV2), 2);
static_assert(kMemoryV2Version == 0x02000028);

// nvmlTemperature_v1_t, for nvmlDeviceGetTemperatureV.
struct Temperature {
  std::uint32_t version;
  std::uint32_t sensor_type;
  std::int32_t temperature;
};
static_assert(sizeof(Temperature) == 12 && offsetof(Temperature, temperature) == 8);
inline constexpr std::uint32_t kTemperatureVersion = struct_version(sizeof(Temperature), 1);
static_assert(kTemperatureVersion == 0x0100000C);

// nvmlValue_t: which member is valid is said by a ValueType.
union Value {
  double d;
  std::int32_t si;
  std::uint32_t ui;
  unsigned long ul;  // NOLINT(google-runtime-int): 8 bytes on LP64, as in the ABI
  std::uint64_t ull;
  std::int64_t sll;
  std::uint16_t us;
};
static_assert(sizeof(Value) == 8 && alignof(Value) == 8);

// nvmlSample_t
struct Sample {
  std::uint64_t time_stamp;  // CPU wall clock, µs since the epoch
  Value value;
};
static_assert(sizeof(Sample) == 16 && offsetof(Sample, value) == 8);

// nvmlFieldValue_t
struct FieldValue {
  std::uint32_t field_id;
  std::uint32_t scope_id;
  std::int64_t timestamp;
  std::int64_t latency_usec;
  std::uint32_t value_type;
  std::uint32_t nvml_return;
  Value value;
};
static_assert(sizeof(FieldValue) == 40);
static_assert(offsetof(FieldValue, timestamp) == 8 && offsetof(FieldValue, latency_usec) == 16);
static_assert(offsetof(FieldValue, value_type) == 24 && offsetof(FieldValue, nvml_return) == 28);
static_assert(offsetof(FieldValue, value) == 32);

// Process lists. The element written depends on the exported symbol (and, for _v3, on the
// driver: 535.43.02-535.86.05 write 32-byte elements).
struct ProcessInfoV1 {
  std::uint32_t pid;
  std::uint64_t used_gpu_memory;  // bytes, or kValueNotAvailableU64
};
static_assert(sizeof(ProcessInfoV1) == 16 && offsetof(ProcessInfoV1, used_gpu_memory) == 8);

struct ProcessInfoV2 {
  std::uint32_t pid;
  std::uint64_t used_gpu_memory;
  std::uint32_t gpu_instance_id;      // 0xFFFFFFFF without MIG
  std::uint32_t compute_instance_id;  // 0xFFFFFFFF without MIG
};
static_assert(sizeof(ProcessInfoV2) == 24 && offsetof(ProcessInfoV2, used_gpu_memory) == 8);
static_assert(offsetof(ProcessInfoV2, gpu_instance_id) == 16);
static_assert(offsetof(ProcessInfoV2, compute_instance_id) == 20);

// The 32-byte element of drivers 535.43.02-535.86.05, and nvmlProcessDetail_v1_t.
struct ProcessDetailV1 {
  std::uint32_t pid;
  std::uint64_t used_gpu_memory;
  std::uint32_t gpu_instance_id;
  std::uint32_t compute_instance_id;
  std::uint64_t used_gpu_cc_protected_memory;
};
static_assert(sizeof(ProcessDetailV1) == 32);
static_assert(offsetof(ProcessDetailV1, used_gpu_cc_protected_memory) == 24);

// nvmlProcessMode_t
enum ProcessMode : std::uint32_t {
  kProcessModeCompute = 0,
  kProcessModeGraphics = 1,
  kProcessModeMps = 2
};

struct ProcessDetailListV1 {
  std::uint32_t version;
  std::uint32_t mode;
  std::uint32_t num_proc_array_entries;
  ProcessDetailV1* proc_array;
};
static_assert(sizeof(ProcessDetailListV1) == 24 && offsetof(ProcessDetailListV1, proc_array) == 16);
inline constexpr std::uint32_t kProcessDetailListVersion =
    struct_version(sizeof(ProcessDetailListV1), 1);
static_assert(kProcessDetailListVersion == 0x01000018);

// nvmlConfComputeMemSizeInfo_t: only its exported getter matters (driver detection).
struct ConfComputeMemSizeInfo {
  std::uint64_t protected_mem_size_kib;
  std::uint64_t unprotected_mem_size_kib;
};
static_assert(sizeof(ConfComputeMemSizeInfo) == 16);

// nvmlProcessUtilizationSample_t, written by nvmlDeviceGetProcessUtilization.
struct ProcessUtilizationSample {
  std::uint32_t pid;
  std::uint64_t time_stamp;  // µs
  std::uint32_t sm_util;
  std::uint32_t mem_util;
  std::uint32_t enc_util;
  std::uint32_t dec_util;
};
static_assert(sizeof(ProcessUtilizationSample) == 32);
static_assert(offsetof(ProcessUtilizationSample, time_stamp) == 8);
static_assert(offsetof(ProcessUtilizationSample, sm_util) == 16);
static_assert(offsetof(ProcessUtilizationSample, dec_util) == 28);

// nvmlProcessUtilizationInfo_v1_t: note the time stamp comes first here.
struct ProcessUtilizationInfoV1 {
  std::uint64_t time_stamp;
  std::uint32_t pid;
  std::uint32_t sm_util;
  std::uint32_t mem_util;
  std::uint32_t enc_util;
  std::uint32_t dec_util;
  std::uint32_t jpg_util;
  std::uint32_t ofa_util;
};
static_assert(sizeof(ProcessUtilizationInfoV1) == 40);
static_assert(offsetof(ProcessUtilizationInfoV1, pid) == 8);
static_assert(offsetof(ProcessUtilizationInfoV1, sm_util) == 12);
static_assert(offsetof(ProcessUtilizationInfoV1, ofa_util) == 32);

// nvmlProcessesUtilizationInfo_v1_t
struct ProcessesUtilizationInfoV1 {
  std::uint32_t version;
  std::uint32_t process_samples_count;  // in: capacity; out: written or required
  std::uint64_t last_seen_time_stamp;   // µs; 0 = everything buffered
  ProcessUtilizationInfoV1* proc_util_array;
};
static_assert(sizeof(ProcessesUtilizationInfoV1) == 24);
static_assert(offsetof(ProcessesUtilizationInfoV1, last_seen_time_stamp) == 8);
static_assert(offsetof(ProcessesUtilizationInfoV1, proc_util_array) == 16);
inline constexpr std::uint32_t kProcessesUtilizationInfoVersion =
    struct_version(sizeof(ProcessesUtilizationInfoV1), 1);
static_assert(kProcessesUtilizationInfoVersion == 0x01000018);

// nvmlAccountingStats_t
struct AccountingStats {
  std::uint32_t gpu_utilization;     // % over the lifetime, or 0xFFFFFFFF
  std::uint32_t memory_utilization;  // % over the lifetime, or 0xFFFFFFFF
  std::uint64_t max_memory_usage;    // bytes, or all ones
  std::uint64_t time;                // ms the context was active; 0 while running
  std::uint64_t start_time;          // µs since the epoch
  std::uint32_t is_running;
  std::uint32_t reserved[5];
};
static_assert(sizeof(AccountingStats) == 56);
static_assert(offsetof(AccountingStats, max_memory_usage) == 8);
static_assert(offsetof(AccountingStats, time) == 16);
static_assert(offsetof(AccountingStats, start_time) == 24);
static_assert(offsetof(AccountingStats, is_running) == 32);

// Function signatures, one per distinct shape. The loader keeps a pointer of each type;
// the simulator's exports are checked against them.
using InitFn = Return();
using InitWithFlagsFn = Return(unsigned flags);
using ShutdownFn = Return();
using ErrorStringFn = const char*(Return);
using StringGetterFn = Return(char* out, unsigned length);
using IntGetterFn = Return(int* out);
using ProcessNameFn = Return(unsigned pid, char* name, unsigned length);
using CountFn = Return(unsigned* count);
using HandleByIndexFn = Return(unsigned index, Device* device);
using HandleByUuidFn = Return(const char* uuid, Device* device);
using DeviceStringFn = Return(Device, char* out, unsigned length);
using DeviceUintFn = Return(Device, unsigned* out);
using DeviceUllFn = Return(Device, std::uint64_t* out);
using DevicePciInfoFn = Return(Device, PciInfo* out);
using DeviceComputeCapabilityFn = Return(Device, int* major, int* minor);
using DeviceUtilizationFn = Return(Device, Utilization* out);
using DeviceMemoryFn = Return(Device, Memory* out);
using DeviceMemoryV2Fn = Return(Device, MemoryV2* inout);
using DeviceTemperatureFn = Return(Device, TemperatureSensor, unsigned* out);
using DeviceTemperatureVFn = Return(Device, Temperature* inout);
using DeviceClockFn = Return(Device, ClockType, unsigned* out);
using DeviceCodecUtilizationFn = Return(Device, unsigned* utilization, unsigned* period_us);
using DevicePcieThroughputFn = Return(Device, PcieUtilCounter, unsigned* out);
using DeviceEccFn = Return(Device, MemoryErrorType, EccCounterType, std::uint64_t* out);
// nvmlDeviceGetRemappedRows(device, corrRows, uncRows, isPending, failureOccurred)
using DeviceRemappedRowsFn = Return(Device, unsigned* corrected, unsigned* uncorrected,
                                    unsigned* pending, unsigned* failed);
// nvmlDeviceGetRetiredPages(device, cause, pageCount, addresses): a count of 0 with no buffer
// asks for the count (INSUFFICIENT_SIZE when there are pages, with the count set).
using DeviceRetiredPagesFn = Return(Device, PageRetirementCause cause, unsigned* count,
                                    unsigned long long* addresses);
// Events: the set is created once, devices register into it, and each wait takes one event.
using EventSetCreateFn = Return(EventSet* set);
using EventSetFreeFn = Return(EventSet set);
using DeviceRegisterEventsFn = Return(Device, unsigned long long event_types, EventSet set);
using EventSetWaitFn = Return(EventSet set, EventData* data, unsigned timeout_ms);
using DeviceSamplesFn = Return(Device, SamplingType, std::uint64_t last_seen, ValueType* type,
                               unsigned* count, Sample* samples);
using DeviceFieldValuesFn = Return(Device, int count, FieldValue* values);
// Element type depends on the symbol: ProcessInfoV1 / ProcessInfoV2 / ProcessDetailV1.
using DeviceProcessesFn = Return(Device, unsigned* count, void* infos);
using DeviceProcessDetailListFn = Return(Device, ProcessDetailListV1* inout);
using DeviceConfComputeMemSizeFn = Return(Device, ConfComputeMemSizeInfo* out);
using DeviceProcessUtilizationFn = Return(Device, ProcessUtilizationSample* samples,
                                          unsigned* count, std::uint64_t last_seen);
using DeviceProcessesUtilizationInfoFn = Return(Device, ProcessesUtilizationInfoV1* inout);
using DeviceMigModeFn = Return(Device, unsigned* current, unsigned* pending);
using DeviceMigHandleByIndexFn = Return(Device, unsigned index, Device* mig);
using DeviceParentFn = Return(Device, Device* parent);
using DeviceAccountingPidsFn = Return(Device, unsigned* count, unsigned* pids);
using DeviceAccountingStatsFn = Return(Device, unsigned pid, AccountingStats* out);

// Accounting control (root only): the mode is an nvmlEnableState_t passed by value.
using DeviceSetAccountingModeFn = Return(Device, EnableState mode);
using DeviceClearAccountingPidsFn = Return(Device);
// ---- vGPU (host side) -------------------------------------------------------------------
// nvmlVgpuInstance_t and nvmlVgpuTypeId_t are plain unsigned ints; 0 is never an instance.
using VgpuInstance = std::uint32_t;
using VgpuTypeId = std::uint32_t;

inline constexpr unsigned kVgpuUuidBufferSize = 80;      // NVML_DEVICE_UUID_BUFFER_SIZE
inline constexpr unsigned kVgpuVmIdBufferSize = 80;      // same constant
inline constexpr unsigned kVgpuTypeNameBufferSize = 64;  // NVML_DEVICE_NAME_BUFFER_SIZE
inline constexpr unsigned kVgpuNameBufferSize = 64;      // NVML_VGPU_NAME_BUFFER_SIZE

// nvmlVgpuVmIdType_t
enum VgpuVmIdType : std::uint32_t { kVgpuVmIdDomainId = 0, kVgpuVmIdUuid = 1 };

// NVML_GRID_LICENSE_EXPIRY_* and NVML_GRID_LICENSE_STATE_*
inline constexpr std::uint8_t kLicenseExpiryNotAvailable = 0;
inline constexpr std::uint8_t kLicenseExpiryInvalid = 1;
inline constexpr std::uint8_t kLicenseExpiryValid = 2;
inline constexpr std::uint8_t kLicenseExpiryNotApplicable = 3;
inline constexpr std::uint8_t kLicenseExpiryPermanent = 4;
inline constexpr std::uint32_t kLicenseStateUnknown = 0;
inline constexpr std::uint32_t kLicenseStateUninitialized = 1;
inline constexpr std::uint32_t kLicenseStateUnlicensedUnrestricted = 2;
inline constexpr std::uint32_t kLicenseStateUnlicensedRestricted = 3;
inline constexpr std::uint32_t kLicenseStateUnlicensed = 4;
inline constexpr std::uint32_t kLicenseStateLicensed = 5;

// nvmlVgpuInstanceUtilizationSample_t (nvmlDeviceGetVgpuUtilization)
struct VgpuInstanceUtilizationSample {
  VgpuInstance vgpu_instance;
  std::uint64_t time_stamp;  // µs
  Value sm_util;
  Value mem_util;
  Value enc_util;
  Value dec_util;
};
static_assert(sizeof(VgpuInstanceUtilizationSample) == 48);
static_assert(offsetof(VgpuInstanceUtilizationSample, time_stamp) == 8);
static_assert(offsetof(VgpuInstanceUtilizationSample, sm_util) == 16);
static_assert(offsetof(VgpuInstanceUtilizationSample, dec_util) == 40);

// nvmlVgpuProcessUtilizationSample_t (nvmlDeviceGetVgpuProcessUtilization)
struct VgpuProcessUtilizationSample {
  VgpuInstance vgpu_instance;
  std::uint32_t pid;  // inside the VM
  char process_name[kVgpuNameBufferSize];
  std::uint64_t time_stamp;
  std::uint32_t sm_util;
  std::uint32_t mem_util;
  std::uint32_t enc_util;
  std::uint32_t dec_util;
};
static_assert(sizeof(VgpuProcessUtilizationSample) == 96);
static_assert(offsetof(VgpuProcessUtilizationSample, process_name) == 8);
static_assert(offsetof(VgpuProcessUtilizationSample, time_stamp) == 72);
static_assert(offsetof(VgpuProcessUtilizationSample, sm_util) == 80);
static_assert(offsetof(VgpuProcessUtilizationSample, dec_util) == 92);

// nvmlVgpuInstanceUtilizationInfo_v1_t: the time stamp first, as in the process variant.
struct VgpuInstanceUtilizationInfoV1 {
  std::uint64_t time_stamp;
  VgpuInstance vgpu_instance;
  Value sm_util;
  Value mem_util;
  Value enc_util;
  Value dec_util;
  Value jpg_util;
  Value ofa_util;
};
static_assert(sizeof(VgpuInstanceUtilizationInfoV1) == 64);
static_assert(offsetof(VgpuInstanceUtilizationInfoV1, vgpu_instance) == 8);
static_assert(offsetof(VgpuInstanceUtilizationInfoV1, sm_util) == 16);
static_assert(offsetof(VgpuInstanceUtilizationInfoV1, ofa_util) == 56);

// nvmlVgpuInstancesUtilizationInfo_v1_t
struct VgpuInstancesUtilizationInfoV1 {
  std::uint32_t version;
  ValueType sample_val_type;          // out
  std::uint32_t vgpu_instance_count;  // in: capacity; out: written or required
  std::uint64_t last_seen_time_stamp;
  VgpuInstanceUtilizationInfoV1* vgpu_util_array;
};
static_assert(sizeof(VgpuInstancesUtilizationInfoV1) == 32);
static_assert(offsetof(VgpuInstancesUtilizationInfoV1, vgpu_instance_count) == 8);
static_assert(offsetof(VgpuInstancesUtilizationInfoV1, last_seen_time_stamp) == 16);
static_assert(offsetof(VgpuInstancesUtilizationInfoV1, vgpu_util_array) == 24);
inline constexpr std::uint32_t kVgpuInstancesUtilizationInfoVersion =
    struct_version(sizeof(VgpuInstancesUtilizationInfoV1), 1);
static_assert(kVgpuInstancesUtilizationInfoVersion == 0x01000020);

// nvmlVgpuProcessUtilizationInfo_v1_t
struct VgpuProcessUtilizationInfoV1 {
  char process_name[kVgpuNameBufferSize];
  std::uint64_t time_stamp;
  VgpuInstance vgpu_instance;
  std::uint32_t pid;
  std::uint32_t sm_util;
  std::uint32_t mem_util;
  std::uint32_t enc_util;
  std::uint32_t dec_util;
  std::uint32_t jpg_util;
  std::uint32_t ofa_util;
};
static_assert(sizeof(VgpuProcessUtilizationInfoV1) == 104);
static_assert(offsetof(VgpuProcessUtilizationInfoV1, time_stamp) == 64);
static_assert(offsetof(VgpuProcessUtilizationInfoV1, vgpu_instance) == 72);
static_assert(offsetof(VgpuProcessUtilizationInfoV1, sm_util) == 80);
static_assert(offsetof(VgpuProcessUtilizationInfoV1, ofa_util) == 100);

// nvmlVgpuProcessesUtilizationInfo_v1_t
struct VgpuProcessesUtilizationInfoV1 {
  std::uint32_t version;
  std::uint32_t vgpu_process_count;  // in: capacity; out: written or required
  std::uint64_t last_seen_time_stamp;
  VgpuProcessUtilizationInfoV1* vgpu_proc_util_array;
};
static_assert(sizeof(VgpuProcessesUtilizationInfoV1) == 24);
static_assert(offsetof(VgpuProcessesUtilizationInfoV1, last_seen_time_stamp) == 8);
static_assert(offsetof(VgpuProcessesUtilizationInfoV1, vgpu_proc_util_array) == 16);
inline constexpr std::uint32_t kVgpuProcessesUtilizationInfoVersion =
    struct_version(sizeof(VgpuProcessesUtilizationInfoV1), 1);
static_assert(kVgpuProcessesUtilizationInfoVersion == 0x01000018);

// nvmlVgpuLicenseExpiry_t
struct VgpuLicenseExpiry {
  std::uint32_t year;
  std::uint16_t month;
  std::uint16_t day;
  std::uint16_t hour;
  std::uint16_t min;
  std::uint16_t sec;
  std::uint8_t status;  // kLicenseExpiry*
};
static_assert(sizeof(VgpuLicenseExpiry) == 16 && alignof(VgpuLicenseExpiry) == 4);
static_assert(offsetof(VgpuLicenseExpiry, month) == 4 && offsetof(VgpuLicenseExpiry, sec) == 12);
static_assert(offsetof(VgpuLicenseExpiry, status) == 14);

// nvmlVgpuLicenseInfo_t, as written by nvmlVgpuInstanceGetLicenseInfo_v2.
struct VgpuLicenseInfo {
  std::uint8_t is_licensed;
  VgpuLicenseExpiry license_expiry;
  std::uint32_t current_state;  // kLicenseState*
};
static_assert(sizeof(VgpuLicenseInfo) == 24 && alignof(VgpuLicenseInfo) == 4);
static_assert(offsetof(VgpuLicenseInfo, license_expiry) == 4);
static_assert(offsetof(VgpuLicenseInfo, current_state) == 20);

using DeviceActiveVgpusFn = Return(Device, unsigned* count, VgpuInstance* instances);
using VgpuStringFn = Return(VgpuInstance, char* out, unsigned size);
using VgpuVmIdFn = Return(VgpuInstance, char* out, unsigned size, VgpuVmIdType* type);
using VgpuTypeFn = Return(VgpuInstance, VgpuTypeId* out);
using VgpuTypeNameFn = Return(VgpuTypeId, char* out, unsigned* size);  // size by pointer
using VgpuUllFn = Return(VgpuInstance, std::uint64_t* out);
using VgpuUintFn = Return(VgpuInstance, unsigned* out);
using VgpuLicenseInfoFn = Return(VgpuInstance, VgpuLicenseInfo* out);
using DeviceVgpuUtilizationFn = Return(Device, std::uint64_t last_seen, ValueType* type,
                                       unsigned* count, VgpuInstanceUtilizationSample* samples);
using DeviceVgpuProcessUtilizationFn = Return(Device, std::uint64_t last_seen, unsigned* count,
                                              VgpuProcessUtilizationSample* samples);
using DeviceVgpuInstancesUtilizationInfoFn = Return(Device, VgpuInstancesUtilizationInfoV1* inout);
using DeviceVgpuProcessesUtilizationInfoFn = Return(Device, VgpuProcessesUtilizationInfoV1* inout);
using VgpuAccountingPidsFn = Return(VgpuInstance, unsigned* count, unsigned* pids);
using VgpuAccountingStatsFn = Return(VgpuInstance, unsigned pid, AccountingStats* out);
using VgpuClearFn = Return(VgpuInstance);
// ---- GPM (GPU performance monitoring, Hopper and newer): nvml-reference.md §3.8, §4.10, §5.5

// nvmlGpmSample_t: a buffer the library allocates and frees.
struct GpmSampleOpaque;
using GpmSample = GpmSampleOpaque*;

// nvmlGpmSupport_t
struct GpmSupport {
  std::uint32_t version;              // IN: kGpmSupportVersion
  std::uint32_t is_supported_device;  // OUT: non-zero when supported
};
static_assert(sizeof(GpmSupport) == 8 && offsetof(GpmSupport, is_supported_device) == 4);
inline constexpr std::uint32_t kGpmSupportVersion = 1;
inline constexpr std::uint32_t kGpmMetricsGetVersion = 1;

// nvmlGpmMetricId_t: the ones gpumeter reads.
enum GpmMetricId : std::uint32_t {
  kGpmGraphicsUtil = 1,
  kGpmSmUtil = 2,
  kGpmSmOccupancy = 3,
  kGpmAnyTensorUtil = 5,
  kGpmDramBwUtil = 10,
  kGpmPcieTxPerSec = 20,  // MiB/s
  kGpmPcieRxPerSec = 21,
  kGpmNvlinkTotalRxPerSec = 60,  // MiB/s
  kGpmNvlinkTotalTxPerSec = 61,
};

// nvmlGpmMetric_t
struct GpmMetric {
  std::uint32_t metric_id;  // IN
  Return nvml_return;       // OUT, per metric
  double value;             // OUT, valid when nvml_return is SUCCESS
  const char* short_name;   // OUT (metricInfo), library-owned, may be NULL
  const char* long_name;
  const char* unit;
};
static_assert(sizeof(GpmMetric) == 40 && alignof(GpmMetric) == 8);
static_assert(offsetof(GpmMetric, nvml_return) == 4 && offsetof(GpmMetric, value) == 8);
static_assert(offsetof(GpmMetric, short_name) == 16 && offsetof(GpmMetric, unit) == 32);

// nvmlGpmMetricsGet_t, declared with the largest array any header has (595.45.04+: 333), so
// that no driver writes past it; callers keep num_metrics within the oldest MAX (98).
inline constexpr std::size_t kGpmMetricMax = 333;
inline constexpr std::uint32_t kGpmMetricsPortableMax = 98;
struct GpmMetricsGet {
  std::uint32_t version;  // IN: kGpmMetricsGetVersion
  std::uint32_t num_metrics;
  GpmSample sample1;  // older
  GpmSample sample2;  // newer
  std::array<GpmMetric, kGpmMetricMax> metrics;
};
static_assert(offsetof(GpmMetricsGet, sample1) == 8 && offsetof(GpmMetricsGet, sample2) == 16);
static_assert(offsetof(GpmMetricsGet, metrics) == 24 && sizeof(GpmMetricsGet) == 13344);

using GpmQuerySupportFn = Return(Device, GpmSupport* inout);
using GpmSampleAllocFn = Return(GpmSample* out);
using GpmSampleFreeFn = Return(GpmSample);
using GpmSampleGetFn = Return(Device, GpmSample);
using GpmMigSampleGetFn = Return(Device, unsigned gpu_instance_id, GpmSample);
using GpmMetricsGetFn = Return(GpmMetricsGet* inout);

// NOLINTEND(performance-enum-size)

}  // namespace gpumeter::nvml::abi
