// SPDX-License-Identifier: MIT
// The scenario the library protocol tests run against: exact numbers, 1-second samples.
#pragma once

namespace gpumeter::sim::testing {

// GPU 0: three processes (steady compute, bursty compute, idle graphics). GPU 1: idle,
// consumer-like (no fan reading, ECC, serial or power), MIG-capable.
inline constexpr const char* kProtocolScenario = R"({
  "driver": {"driver_version": "550.54.15", "nvml_version": "12.550.54.15", "cuda_driver_version": 12040},
  "devices": [
    {"name": "Tesla V100-SXM2-16GB", "uuid": "GPU-11111111-2222-4333-8444-555555555555", "serial": "0323617004913",
     "pci": {"bus_id": "00000000:06:00.0", "device_id": "0x1DB110DE", "subsystem_id": "0x121210DE"},
     "minor_number": 3, "architecture": "volta", "compute_capability": "7.0",
     "memory_total_bytes": 16000000000, "memory_reserved_bytes": 300000000,
     "power_limit_w": 300, "power_idle_w": 100, "energy_offset_mj": 5000,
     "fan_percent": 40, "temperature_c": {"idle": 30, "busy": 80},
     "sample_period_ms": 1000, "sample_buffer_s": 10,
     "accounting": {"enabled": true}},
    {"name": "NVIDIA GeForce RTX 3090", "uuid": "GPU-66666666-7777-4888-9999-000000000000",
     "architecture": "ampere", "memory_total_bytes": 25769803776, "mig": "disabled",
     "unsupported": ["fan", "ecc", "serial", "power", "energy"]}
  ],
  "processes": [
    {"device": 0, "pid": 1001, "used_memory_bytes": 1000000000, "utilization": {"sm": 60, "mem": 25}},
    {"device": 0, "pid": 1002, "used_memory_bytes": 2000000000,
     "utilization": {"sm": {"bursts": {"period_s": 10, "duty": 0.2, "value": 30}}}},
    {"device": 0, "pid": 1003, "type": "graphics", "used_memory_bytes": 50000000, "utilization": {"sm": 0},
     "name": "/usr/lib/xorg/Xorg"}
  ]
})";

}  // namespace gpumeter::sim::testing
