# SPDX-License-Identifier: MIT
"""An independent NVML client (ctypes, as NVIDIA's Python bindings work) pointed at the
simulated library must read what gpumeter shows."""

import ctypes
import os
import unittest

from gpumeter_testlib import clean_env, epoch_seconds_ago, list_json, scenario, sim_library


class Memory(ctypes.Structure):
    _fields_ = [("total", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong),
                ("used", ctypes.c_ulonglong)]


class MemoryV2(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint), ("total", ctypes.c_ulonglong),
                ("reserved", ctypes.c_ulonglong), ("free", ctypes.c_ulonglong),
                ("used", ctypes.c_ulonglong)]


class ProcessInfo(ctypes.Structure):
    _fields_ = [("pid", ctypes.c_uint), ("usedGpuMemory", ctypes.c_ulonglong),
                ("gpuInstanceId", ctypes.c_uint), ("computeInstanceId", ctypes.c_uint)]


NVML_SUCCESS = 0
NVML_ERROR_INSUFFICIENT_SIZE = 7


class CtypesClient(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        epoch = epoch_seconds_ago(30)
        os.environ["GPUMETER_SIM_SCENARIO"] = str(scenario("dgx-8gpu"))
        os.environ["GPUMETER_SIM_EPOCH_US"] = str(epoch)
        cls.listing = list_json("dgx-8gpu", env=clean_env(GPUMETER_SIM_EPOCH_US=epoch))
        cls.nvml = ctypes.CDLL(str(sim_library()))
        cls.nvml.nvmlErrorString.restype = ctypes.c_char_p
        cls.check(cls.nvml.nvmlInit_v2())

    @classmethod
    def tearDownClass(cls):
        cls.nvml.nvmlShutdown()

    @classmethod
    def check(cls, code):
        if code != NVML_SUCCESS:
            raise AssertionError(cls.nvml.nvmlErrorString(code).decode())

    def handle(self, index):
        handle = ctypes.c_void_p()
        self.check(self.nvml.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(handle)))
        return handle

    def string(self, function, handle):
        buffer = ctypes.create_string_buffer(96)
        self.check(function(handle, buffer, 96))
        return buffer.value.decode()

    def test_device_count(self):
        count = ctypes.c_uint()
        self.check(self.nvml.nvmlDeviceGetCount_v2(ctypes.byref(count)))
        self.assertEqual(count.value, len(self.listing["gpus"]))

    def test_identity_matches(self):
        for gpu in self.listing["gpus"]:
            handle = self.handle(gpu["index"])
            self.assertEqual(self.string(self.nvml.nvmlDeviceGetName, handle), gpu["name"])
            self.assertEqual(self.string(self.nvml.nvmlDeviceGetUUID, handle), gpu["uuid"])

    def test_memory_matches_both_versions(self):
        for gpu in self.listing["gpus"]:
            handle = self.handle(gpu["index"])
            v2 = MemoryV2(version=0x02000028)
            self.check(self.nvml.nvmlDeviceGetMemoryInfo_v2(handle, ctypes.byref(v2)))
            self.assertEqual(v2.total, gpu["memory_total_bytes"])
            self.assertEqual(v2.used, gpu["memory_used_bytes"])
            v1 = Memory()
            self.check(self.nvml.nvmlDeviceGetMemoryInfo(handle, ctypes.byref(v1)))
            self.assertEqual(v1.used, v2.used + v2.reserved)  # v1 counts reserved as used

    def test_processes_match_with_the_sizing_protocol(self):
        for gpu in self.listing["gpus"]:
            handle = self.handle(gpu["index"])
            count = ctypes.c_uint(0)
            code = self.nvml.nvmlDeviceGetComputeRunningProcesses_v3(handle, ctypes.byref(count),
                                                                     None)
            if not gpu["processes"]:
                self.assertEqual(code, NVML_SUCCESS)
                self.assertEqual(count.value, 0)
                continue
            self.assertEqual(code, NVML_ERROR_INSUFFICIENT_SIZE)
            infos = (ProcessInfo * count.value)()
            self.check(self.nvml.nvmlDeviceGetComputeRunningProcesses_v3(
                handle, ctypes.byref(count), infos))
            seen = {(i.pid, i.usedGpuMemory) for i in infos[:count.value]}
            shown = {(p["pid"], p["used_memory_bytes"]) for p in gpu["processes"]}
            self.assertEqual(seen, shown)


if __name__ == "__main__":
    unittest.main(verbosity=2)
