// SPDX-License-Identifier: MIT
// Every symbol the simulated libnvidia-ml.so.1 can export, with its C signature.
//
// This list is the single source: the library declares its exports from it (and the
// compiler checks each definition against the signature), CMake extracts the names from
// it to write each variant's linker version script, and the scenario parser checks the
// function names of "flaky" faults against it. A variant emulating an older driver
// leaves some of these out (src/sim/CMakeLists.txt).
#pragma once

#include <cstdint>
#include <string_view>

#include "nvml/abi.h"

namespace gpumeter::sim::signatures {

using namespace gpumeter::nvml::abi;  // NOLINT(google-build-using-namespace): signatures only

// Shapes that gpumeter's loader does not use, so src/nvml/abi.h does not declare them. Named in
// full: where core/model.h is also included, an unqualified Device is gpumeter::Device too.
using DeviceTemperatureThresholdFn = nvml::abi::Return(nvml::abi::Device, unsigned threshold_type,
                                                       unsigned* out);
using DeviceLegacyPciInfoFn = nvml::abi::Return(nvml::abi::Device, nvml::abi::PciInfoLegacy* out);
using DeviceUintPairFn = nvml::abi::Return(nvml::abi::Device, unsigned* first, unsigned* second);
using DeviceFanSpeedFn = nvml::abi::Return(nvml::abi::Device, unsigned fan, unsigned* percent);
using DeviceRetiredPagesV2Fn = nvml::abi::Return(nvml::abi::Device,
                                                 nvml::abi::PageRetirementCause cause,
                                                 unsigned* count, unsigned long long* addresses,
                                                 unsigned long long* timestamps);
// nvmlBAR1Memory_t: total, free, used (bytes).
struct Bar1Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
using DeviceBar1Fn = nvml::abi::Return(nvml::abi::Device, Bar1Memory* out);

}  // namespace gpumeter::sim::signatures

// vGPU host calls (src/sim/lib/vgpu.cpp).
// clang-format off
#define GPUMETER_SIM_VGPU_SYMBOLS(X)                                             \
  X(nvmlDeviceGetActiveVgpus, DeviceActiveVgpusFn)                               \
  X(nvmlVgpuInstanceGetUUID, VgpuStringFn)                                       \
  X(nvmlVgpuInstanceGetVmID, VgpuVmIdFn)                                         \
  X(nvmlVgpuInstanceGetType, VgpuTypeFn)                                         \
  X(nvmlVgpuTypeGetName, VgpuTypeNameFn)                                         \
  X(nvmlVgpuInstanceGetFbUsage, VgpuUllFn)                                       \
  X(nvmlVgpuInstanceGetLicenseInfo_v2, VgpuLicenseInfoFn)                        \
  X(nvmlVgpuInstanceGetLicenseStatus, VgpuUintFn)                                \
  X(nvmlDeviceGetVgpuInstancesUtilizationInfo, DeviceVgpuInstancesUtilizationInfoFn) \
  X(nvmlDeviceGetVgpuUtilization, DeviceVgpuUtilizationFn)                       \
  X(nvmlDeviceGetVgpuProcessesUtilizationInfo, DeviceVgpuProcessesUtilizationInfoFn) \
  X(nvmlDeviceGetVgpuProcessUtilization, DeviceVgpuProcessUtilizationFn)         \
  X(nvmlVgpuInstanceGetAccountingMode, VgpuUintFn)                               \
  X(nvmlVgpuInstanceGetAccountingPids, VgpuAccountingPidsFn)                     \
  X(nvmlVgpuInstanceGetAccountingStats, VgpuAccountingStatsFn)                   \
  X(nvmlVgpuInstanceClearAccountingPids, VgpuClearFn)
// clang-format on

// X(symbol, signature type in gpumeter::sim::signatures)
// clang-format off
#define GPUMETER_SIM_SYMBOLS(X)                                        \
  X(nvmlInit_v2, InitFn)                                               \
  X(nvmlInit, InitFn)                                                  \
  X(nvmlInitWithFlags, InitWithFlagsFn)                                \
  X(nvmlShutdown, ShutdownFn)                                          \
  X(nvmlErrorString, ErrorStringFn)                                    \
  X(nvmlSystemGetDriverVersion, StringGetterFn)                        \
  X(nvmlSystemGetNVMLVersion, StringGetterFn)                          \
  X(nvmlSystemGetCudaDriverVersion_v2, IntGetterFn)                    \
  X(nvmlSystemGetCudaDriverVersion, IntGetterFn)                       \
  X(nvmlSystemGetProcessName, ProcessNameFn)                           \
  X(nvmlDeviceGetCount_v2, CountFn)                                    \
  X(nvmlDeviceGetCount, CountFn)                                       \
  X(nvmlDeviceGetHandleByIndex_v2, HandleByIndexFn)                    \
  X(nvmlDeviceGetHandleByIndex, HandleByIndexFn)                       \
  X(nvmlDeviceGetHandleByUUID, HandleByUuidFn)                         \
  X(nvmlDeviceGetHandleByPciBusId_v2, HandleByUuidFn)                  \
  X(nvmlDeviceGetHandleByPciBusId, HandleByUuidFn)                     \
  X(nvmlDeviceGetHandleBySerial, HandleByUuidFn)                       \
  X(nvmlUnitGetCount, CountFn)                                         \
  X(nvmlGetExcludedDeviceCount, CountFn)                               \
  X(nvmlDeviceGetBrand, DeviceUintFn)                                  \
  X(nvmlDeviceGetBoardId, DeviceUintFn)                                \
  X(nvmlDeviceGetMultiGpuBoard, DeviceUintFn)                          \
  X(nvmlDeviceGetBAR1MemoryInfo, DeviceBar1Fn)                         \
  X(nvmlDeviceGetPowerManagementDefaultLimit, DeviceUintFn)            \
  X(nvmlDeviceGetPowerManagementLimitConstraints, DeviceUintPairFn)    \
  X(nvmlDeviceGetCurrentClocksEventReasons, DeviceUllFn)               \
  X(nvmlDeviceGetCurrentClocksThrottleReasons, DeviceUllFn)            \
  X(nvmlDeviceGetSupportedClocksThrottleReasons, DeviceUllFn)          \
  X(nvmlDeviceGetPowerState, DeviceUintFn)                             \
  X(nvmlDeviceGetNumFans, DeviceUintFn)                                \
  X(nvmlDeviceGetFanSpeed_v2, DeviceFanSpeedFn)                        \
  X(nvmlDeviceGetPcieReplayCounter, DeviceUintFn)                      \
  X(nvmlDeviceGetEccMode, DeviceUintPairFn)                            \
  X(nvmlDeviceGetDefaultEccMode, DeviceUintFn)                         \
  X(nvmlDeviceGetDisplayMode, DeviceUintFn)                            \
  X(nvmlDeviceGetDisplayActive, DeviceUintFn)                          \
  X(nvmlDeviceGetRetiredPages, DeviceRetiredPagesFn)                   \
  X(nvmlDeviceGetRetiredPages_v2, DeviceRetiredPagesV2Fn)              \
  X(nvmlDeviceGetRetiredPagesPendingStatus, DeviceUintFn)              \
  X(nvmlDeviceGetRemappedRows, DeviceRemappedRowsFn)                   \
  X(nvmlEventSetCreate, EventSetCreateFn)                              \
  X(nvmlEventSetFree, EventSetFreeFn)                                  \
  X(nvmlDeviceRegisterEvents, DeviceRegisterEventsFn)                  \
  X(nvmlDeviceGetSupportedEventTypes, DeviceUllFn)                     \
  X(nvmlEventSetWait_v2, EventSetWaitFn)                               \
  X(nvmlDeviceGetVirtualizationMode, DeviceUintFn)                     \
  X(nvmlDeviceGetHostVgpuMode, DeviceUintFn)                           \
  X(nvmlDeviceGetName, DeviceStringFn)                                 \
  X(nvmlDeviceGetUUID, DeviceStringFn)                                 \
  X(nvmlDeviceGetSerial, DeviceStringFn)                               \
  X(nvmlDeviceGetPciInfo_v3, DevicePciInfoFn)                          \
  X(nvmlDeviceGetPciInfo_v2, DeviceLegacyPciInfoFn)                    \
  X(nvmlDeviceGetPciInfo, DeviceLegacyPciInfoFn)                       \
  X(nvmlDeviceGetIndex, DeviceUintFn)                                  \
  X(nvmlDeviceGetMinorNumber, DeviceUintFn)                            \
  X(nvmlDeviceGetArchitecture, DeviceUintFn)                           \
  X(nvmlDeviceGetCudaComputeCapability, DeviceComputeCapabilityFn)     \
  X(nvmlDeviceGetUtilizationRates, DeviceUtilizationFn)                \
  X(nvmlDeviceGetMemoryInfo_v2, DeviceMemoryV2Fn)                      \
  X(nvmlDeviceGetMemoryInfo, DeviceMemoryFn)                           \
  X(nvmlDeviceGetTemperatureV, DeviceTemperatureVFn)                   \
  X(nvmlDeviceGetTemperature, DeviceTemperatureFn)                     \
  X(nvmlDeviceGetTemperatureThreshold, DeviceTemperatureThresholdFn)   \
  X(nvmlDeviceGetPowerUsage, DeviceUintFn)                             \
  X(nvmlDeviceGetEnforcedPowerLimit, DeviceUintFn)                     \
  X(nvmlDeviceGetPowerManagementLimit, DeviceUintFn)                   \
  X(nvmlDeviceGetTotalEnergyConsumption, DeviceUllFn)                  \
  X(nvmlDeviceGetClockInfo, DeviceClockFn)                             \
  X(nvmlDeviceGetMaxClockInfo, DeviceClockFn)                          \
  X(nvmlDeviceGetFanSpeed, DeviceUintFn)                               \
  X(nvmlDeviceGetEncoderUtilization, DeviceCodecUtilizationFn)         \
  X(nvmlDeviceGetDecoderUtilization, DeviceCodecUtilizationFn)         \
  X(nvmlDeviceGetPcieThroughput, DevicePcieThroughputFn)               \
  X(nvmlDeviceGetCurrPcieLinkGeneration, DeviceUintFn)                 \
  X(nvmlDeviceGetCurrPcieLinkWidth, DeviceUintFn)                      \
  X(nvmlDeviceGetMaxPcieLinkGeneration, DeviceUintFn)                  \
  X(nvmlDeviceGetMaxPcieLinkWidth, DeviceUintFn)                       \
  X(nvmlDeviceGetPerformanceState, DeviceUintFn)                       \
  X(nvmlDeviceGetComputeMode, DeviceUintFn)                            \
  X(nvmlDeviceGetPersistenceMode, DeviceUintFn)                        \
  X(nvmlDeviceGetTotalEccErrors, DeviceEccFn)                          \
  X(nvmlDeviceGetFieldValues, DeviceFieldValuesFn)                     \
  X(nvmlDeviceGetSamples, DeviceSamplesFn)                             \
  X(nvmlDeviceGetProcessUtilization, DeviceProcessUtilizationFn)       \
  X(nvmlDeviceGetProcessesUtilizationInfo, DeviceProcessesUtilizationInfoFn) \
  X(nvmlDeviceGetComputeRunningProcesses_v3, DeviceProcessesFn)        \
  X(nvmlDeviceGetComputeRunningProcesses_v2, DeviceProcessesFn)        \
  X(nvmlDeviceGetComputeRunningProcesses, DeviceProcessesFn)           \
  X(nvmlDeviceGetGraphicsRunningProcesses_v3, DeviceProcessesFn)       \
  X(nvmlDeviceGetGraphicsRunningProcesses_v2, DeviceProcessesFn)       \
  X(nvmlDeviceGetGraphicsRunningProcesses, DeviceProcessesFn)          \
  X(nvmlDeviceGetMPSComputeRunningProcesses_v3, DeviceProcessesFn)     \
  X(nvmlDeviceGetMPSComputeRunningProcesses_v2, DeviceProcessesFn)     \
  X(nvmlDeviceGetMPSComputeRunningProcesses, DeviceProcessesFn)        \
  X(nvmlDeviceGetRunningProcessDetailList, DeviceProcessDetailListFn)  \
  X(nvmlDeviceGetConfComputeMemSizeInfo, DeviceConfComputeMemSizeFn)   \
  X(nvmlDeviceGetMigMode, DeviceMigModeFn)                             \
  X(nvmlDeviceGetMaxMigDeviceCount, DeviceUintFn)                      \
  X(nvmlDeviceGetMigDeviceHandleByIndex, DeviceMigHandleByIndexFn)     \
  X(nvmlDeviceIsMigDeviceHandle, DeviceUintFn)                         \
  X(nvmlDeviceGetGpuInstanceId, DeviceUintFn)                          \
  X(nvmlDeviceGetComputeInstanceId, DeviceUintFn)                      \
  X(nvmlDeviceGetDeviceHandleFromMigDeviceHandle, DeviceParentFn)      \
  X(nvmlDeviceGetAccountingMode, DeviceUintFn)                         \
  X(nvmlDeviceGetAccountingBufferSize, DeviceUintFn)                   \
  X(nvmlDeviceGetAccountingPids, DeviceAccountingPidsFn)               \
  X(nvmlDeviceGetAccountingStats, DeviceAccountingStatsFn)            \
  X(nvmlDeviceSetAccountingMode, DeviceSetAccountingModeFn)            \
  X(nvmlDeviceClearAccountingPids, DeviceClearAccountingPidsFn)        \
  GPUMETER_SIM_VGPU_SYMBOLS(X)                                         \
  X(nvmlGpmQueryDeviceSupport, GpmQuerySupportFn)                      \
  X(nvmlGpmSampleAlloc, GpmSampleAllocFn)                              \
  X(nvmlGpmSampleFree, GpmSampleFreeFn)                                \
  X(nvmlGpmSampleGet, GpmSampleGetFn)                                  \
  X(nvmlGpmMigSampleGet, GpmMigSampleGetFn)                            \
  X(nvmlGpmMetricsGet, GpmMetricsGetFn)
// clang-format on

namespace gpumeter::sim {

// True for a name the library exports: in GPUMETER_SIM_SYMBOLS or unmodelled_symbols.h.
bool is_simulated_symbol(std::string_view name) noexcept;

}  // namespace gpumeter::sim
