// SPDX-License-Identifier: MIT
// The one list of NVML entry points gpumeter resolves, in order of preference.
//
// X(member, FunctionType, "preferred symbol", "fallback", ...): the loader looks each name up
// with dlsym in the order given and keeps the first it finds, remembering which one (the
// element layout of some calls depends on it). A member with no symbol found is a feature
// this driver lacks, never a failure of the whole program. The simulated library exports
// every name listed here.
#pragma once

#include "nvml/abi.h"

// vGPU host calls (docs/vgpu.md). Every one of them answers NOT_SUPPORTED on bare metal.
// clang-format off
#define GPUMETER_NVML_VGPU_ENTRY_POINTS(X)                                                     \
  X(active_vgpus, DeviceActiveVgpusFn, "nvmlDeviceGetActiveVgpus")                             \
  X(vgpu_uuid, VgpuStringFn, "nvmlVgpuInstanceGetUUID")                                        \
  X(vgpu_vm_id, VgpuVmIdFn, "nvmlVgpuInstanceGetVmID")                                         \
  X(vgpu_type, VgpuTypeFn, "nvmlVgpuInstanceGetType")                                          \
  X(vgpu_type_name, VgpuTypeNameFn, "nvmlVgpuTypeGetName")                                     \
  X(vgpu_fb_usage, VgpuUllFn, "nvmlVgpuInstanceGetFbUsage")                                    \
  X(vgpu_license_info, VgpuLicenseInfoFn, "nvmlVgpuInstanceGetLicenseInfo_v2")                 \
  X(vgpu_license_status, VgpuUintFn, "nvmlVgpuInstanceGetLicenseStatus")                       \
  X(vgpu_instances_utilization_info, DeviceVgpuInstancesUtilizationInfoFn,                     \
    "nvmlDeviceGetVgpuInstancesUtilizationInfo")                                               \
  X(vgpu_utilization, DeviceVgpuUtilizationFn, "nvmlDeviceGetVgpuUtilization")                 \
  X(vgpu_processes_utilization_info, DeviceVgpuProcessesUtilizationInfoFn,                     \
    "nvmlDeviceGetVgpuProcessesUtilizationInfo")                                               \
  X(vgpu_process_utilization, DeviceVgpuProcessUtilizationFn,                                  \
    "nvmlDeviceGetVgpuProcessUtilization")                                                     \
  X(vgpu_accounting_mode, VgpuUintFn, "nvmlVgpuInstanceGetAccountingMode")                     \
  X(vgpu_accounting_pids, VgpuAccountingPidsFn, "nvmlVgpuInstanceGetAccountingPids")           \
  X(vgpu_accounting_stats, VgpuAccountingStatsFn, "nvmlVgpuInstanceGetAccountingStats")        \
  X(vgpu_clear_accounting, VgpuClearFn, "nvmlVgpuInstanceClearAccountingPids")
// clang-format on

// clang-format off
#define GPUMETER_NVML_ENTRY_POINTS(X)                                                          \
  X(init, InitFn, "nvmlInit_v2", "nvmlInit")                                                   \
  X(init_with_flags, InitWithFlagsFn, "nvmlInitWithFlags")                                     \
  X(shutdown, ShutdownFn, "nvmlShutdown")                                                      \
  X(error_string, ErrorStringFn, "nvmlErrorString")                                            \
  X(driver_version, StringGetterFn, "nvmlSystemGetDriverVersion")                              \
  X(nvml_version, StringGetterFn, "nvmlSystemGetNVMLVersion")                                  \
  X(cuda_driver_version, IntGetterFn, "nvmlSystemGetCudaDriverVersion_v2",                     \
    "nvmlSystemGetCudaDriverVersion")                                                          \
  X(process_name, ProcessNameFn, "nvmlSystemGetProcessName")                                   \
  X(device_count, CountFn, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount")                      \
  X(handle_by_index, HandleByIndexFn, "nvmlDeviceGetHandleByIndex_v2",                         \
    "nvmlDeviceGetHandleByIndex")                                                              \
  X(handle_by_uuid, HandleByUuidFn, "nvmlDeviceGetHandleByUUID")                               \
  X(name, DeviceStringFn, "nvmlDeviceGetName")                                                 \
  X(uuid, DeviceStringFn, "nvmlDeviceGetUUID")                                                 \
  X(serial, DeviceStringFn, "nvmlDeviceGetSerial")                                             \
  X(pci_info, DevicePciInfoFn, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2",           \
    "nvmlDeviceGetPciInfo")                                                                    \
  X(index, DeviceUintFn, "nvmlDeviceGetIndex")                                                 \
  X(minor_number, DeviceUintFn, "nvmlDeviceGetMinorNumber")                                    \
  X(architecture, DeviceUintFn, "nvmlDeviceGetArchitecture")                                   \
  X(compute_capability, DeviceComputeCapabilityFn, "nvmlDeviceGetCudaComputeCapability")       \
  X(utilization_rates, DeviceUtilizationFn, "nvmlDeviceGetUtilizationRates")                   \
  X(memory_info_v2, DeviceMemoryV2Fn, "nvmlDeviceGetMemoryInfo_v2")                            \
  X(memory_info, DeviceMemoryFn, "nvmlDeviceGetMemoryInfo")                                    \
  X(temperature_v, DeviceTemperatureVFn, "nvmlDeviceGetTemperatureV")                          \
  X(temperature, DeviceTemperatureFn, "nvmlDeviceGetTemperature")                              \
  X(power_usage, DeviceUintFn, "nvmlDeviceGetPowerUsage")                                      \
  X(enforced_power_limit, DeviceUintFn, "nvmlDeviceGetEnforcedPowerLimit")                     \
  X(total_energy, DeviceUllFn, "nvmlDeviceGetTotalEnergyConsumption")                          \
  X(clock, DeviceClockFn, "nvmlDeviceGetClockInfo")                                            \
  X(max_clock, DeviceClockFn, "nvmlDeviceGetMaxClockInfo")                                     \
  X(fan_speed, DeviceUintFn, "nvmlDeviceGetFanSpeed")                                          \
  X(encoder_utilization, DeviceCodecUtilizationFn, "nvmlDeviceGetEncoderUtilization")          \
  X(decoder_utilization, DeviceCodecUtilizationFn, "nvmlDeviceGetDecoderUtilization")          \
  X(pcie_throughput, DevicePcieThroughputFn, "nvmlDeviceGetPcieThroughput")                    \
  X(performance_state, DeviceUintFn, "nvmlDeviceGetPerformanceState")                          \
  X(compute_mode, DeviceUintFn, "nvmlDeviceGetComputeMode")                                    \
  X(persistence_mode, DeviceUintFn, "nvmlDeviceGetPersistenceMode")                            \
  X(total_ecc_errors, DeviceEccFn, "nvmlDeviceGetTotalEccErrors")                              \
  X(clock_event_reasons, DeviceUllFn, "nvmlDeviceGetCurrentClocksEventReasons",                 \
    "nvmlDeviceGetCurrentClocksThrottleReasons")                                               \
  X(pcie_replay_counter, DeviceUintFn, "nvmlDeviceGetPcieReplayCounter")                       \
  X(remapped_rows, DeviceRemappedRowsFn, "nvmlDeviceGetRemappedRows")                          \
  X(retired_pages, DeviceRetiredPagesFn, "nvmlDeviceGetRetiredPages")                          \
  X(retired_pages_pending, DeviceUintFn, "nvmlDeviceGetRetiredPagesPendingStatus")             \
  X(event_set_create, EventSetCreateFn, "nvmlEventSetCreate")                                  \
  X(event_set_free, EventSetFreeFn, "nvmlEventSetFree")                                        \
  X(register_events, DeviceRegisterEventsFn, "nvmlDeviceRegisterEvents")                       \
  X(event_set_wait, EventSetWaitFn, "nvmlEventSetWait_v2")                                     \
  X(samples, DeviceSamplesFn, "nvmlDeviceGetSamples")                                          \
  X(field_values, DeviceFieldValuesFn, "nvmlDeviceGetFieldValues")                             \
  X(compute_processes, DeviceProcessesFn, "nvmlDeviceGetComputeRunningProcesses_v3",           \
    "nvmlDeviceGetComputeRunningProcesses_v2", "nvmlDeviceGetComputeRunningProcesses")         \
  X(graphics_processes, DeviceProcessesFn, "nvmlDeviceGetGraphicsRunningProcesses_v3",         \
    "nvmlDeviceGetGraphicsRunningProcesses_v2", "nvmlDeviceGetGraphicsRunningProcesses")       \
  X(mps_processes, DeviceProcessesFn, "nvmlDeviceGetMPSComputeRunningProcesses_v3",            \
    "nvmlDeviceGetMPSComputeRunningProcesses_v2", "nvmlDeviceGetMPSComputeRunningProcesses")   \
  X(process_detail_list, DeviceProcessDetailListFn, "nvmlDeviceGetRunningProcessDetailList")   \
  X(conf_compute_mem_size, DeviceConfComputeMemSizeFn, "nvmlDeviceGetConfComputeMemSizeInfo")  \
  X(processes_utilization_info, DeviceProcessesUtilizationInfoFn,                              \
    "nvmlDeviceGetProcessesUtilizationInfo")                                                   \
  X(process_utilization, DeviceProcessUtilizationFn, "nvmlDeviceGetProcessUtilization")        \
  X(mig_mode, DeviceMigModeFn, "nvmlDeviceGetMigMode")                                         \
  X(max_mig_device_count, DeviceUintFn, "nvmlDeviceGetMaxMigDeviceCount")                      \
  X(mig_handle_by_index, DeviceMigHandleByIndexFn, "nvmlDeviceGetMigDeviceHandleByIndex")      \
  X(is_mig_handle, DeviceUintFn, "nvmlDeviceIsMigDeviceHandle")                                \
  X(gpu_instance_id, DeviceUintFn, "nvmlDeviceGetGpuInstanceId")                               \
  X(compute_instance_id, DeviceUintFn, "nvmlDeviceGetComputeInstanceId")                       \
  X(parent_of_mig, DeviceParentFn, "nvmlDeviceGetDeviceHandleFromMigDeviceHandle")             \
  X(accounting_mode, DeviceUintFn, "nvmlDeviceGetAccountingMode")                              \
  X(accounting_buffer_size, DeviceUintFn, "nvmlDeviceGetAccountingBufferSize")                 \
  X(accounting_pids, DeviceAccountingPidsFn, "nvmlDeviceGetAccountingPids")                    \
  X(accounting_stats, DeviceAccountingStatsFn, "nvmlDeviceGetAccountingStats")                \
  X(set_accounting_mode, DeviceSetAccountingModeFn, "nvmlDeviceSetAccountingMode")             \
  X(clear_accounting_pids, DeviceClearAccountingPidsFn, "nvmlDeviceClearAccountingPids")       \
  GPUMETER_NVML_VGPU_ENTRY_POINTS(X)                                                           \
  X(gpm_query_support, GpmQuerySupportFn, "nvmlGpmQueryDeviceSupport")                        \
  X(gpm_sample_alloc, GpmSampleAllocFn, "nvmlGpmSampleAlloc")                                  \
  X(gpm_sample_free, GpmSampleFreeFn, "nvmlGpmSampleFree")                                     \
  X(gpm_sample_get, GpmSampleGetFn, "nvmlGpmSampleGet")                                        \
  X(gpm_mig_sample_get, GpmMigSampleGetFn, "nvmlGpmMigSampleGet")                              \
  X(gpm_metrics_get, GpmMetricsGetFn, "nvmlGpmMetricsGet")
// clang-format on
