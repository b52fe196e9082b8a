# SPDX-License-Identifier: MIT
"""`gpumeter info --json`: the shape that scripts written for nvgpu expect."""

import collections
import json
import tempfile
import unittest
from pathlib import Path

from gpumeter_testlib import clean_env, list_json, simulate

MIB = 1024 * 1024


class Info(unittest.TestCase):
    def test_json_shape_and_figures(self):
        info = json.loads(simulate("dgx-8gpu", "info", "--json", check=True).stdout)
        listing = {g["index"]: g for g in list_json("dgx-8gpu")["gpus"]}
        self.assertEqual(len(info), 8)
        for entry in info:
            self.assertEqual(set(entry), {"index", "type", "uuid", "mem_used", "mem_total",
                                          "mem_used_percent"})
            gpu = listing[int(entry["index"])]
            self.assertEqual(entry["type"], gpu["name"])
            self.assertEqual(entry["uuid"], gpu["uuid"])
            self.assertEqual(entry["mem_total"], gpu["memory_total_bytes"] // MIB)
            self.assertEqual(entry["mem_used"], gpu["memory_used_bytes"] // MIB)
            self.assertAlmostEqual(entry["mem_used_percent"],
                                   100 * entry["mem_used"] / entry["mem_total"], places=1)

    def test_asks_the_driver_only_what_it_shows(self):
        # Identity and memory: no PCIe throughput (about 20 ms a call on a real driver), no
        # utilisation, processes, clocks or power. The simulator logs every call it answers.
        calls = {}
        for command in (["info", "--json"], ["list", "--json"]):
            with tempfile.TemporaryDirectory() as work:
                log = Path(work) / "calls.log"
                simulate("dgx-8gpu", *command, env=clean_env(GPUMETER_SIM_CALL_LOG=log),
                         check=True)
                calls[command[0]] = collections.Counter(log.read_text().split())
        asked = calls["info"]
        for function in asked:
            self.assertRegex(function, r"^nvml(Init|System|DeviceGet(Count|HandleByIndex|UUID|"
                                       r"Name|Serial|PciInfo|MinorNumber|Architecture|"
                                       r"CudaComputeCapability|MemoryInfo))", function)
        self.assertEqual(asked["nvmlDeviceGetMemoryInfo_v2"], 8)
        self.assertLess(sum(asked.values()), sum(calls["list"].values()) / 3)
        self.assertEqual(calls["list"]["nvmlDeviceGetPcieThroughput"], 16)

    def test_human_table(self):
        out = simulate("dgx-8gpu", "info", "--no-color", check=True).stdout
        self.assertEqual(sum(1 for line in out.splitlines() if "GPU-" in line), 8, out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
