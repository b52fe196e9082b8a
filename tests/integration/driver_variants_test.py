# SPDX-License-Identifier: MIT
"""Older drivers, through the real loader: the 535.43-535.86 `_v3` stride window (32-byte
process entries) and a legacy driver without the newer symbols must read the same figures."""

import json
import unittest

from gpumeter_testlib import clean_env, epoch_seconds_ago, run, scenario, sim_library


def listing(variant, epoch):
    env = clean_env(GPUMETER_NVML_LIBRARY=sim_library(variant),
                    GPUMETER_SIM_SCENARIO=scenario("dgx-8gpu"), GPUMETER_SIM_EPOCH_US=epoch)
    return json.loads(run("list", "--json", env=env, check=True).stdout)


def processes(doc):
    return [[(p["pid"], p["used_memory_bytes"]) for p in g["processes"]] for g in doc["gpus"]]


class DriverVariants(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        epoch = epoch_seconds_ago(5)
        cls.modern = listing("sim", epoch)
        cls.r535 = listing("sim-r535-cc", epoch)
        cls.legacy = listing("sim-legacy", epoch)

    def test_stride_window_reads_the_same_processes(self):
        self.assertEqual(processes(self.r535), processes(self.modern))
        self.assertEqual(sum(len(g["processes"]) for g in self.r535["gpus"]), 3)

    def test_legacy_driver_reads_the_same_processes(self):
        self.assertEqual(processes(self.legacy), processes(self.modern))

    def test_legacy_memory_counts_reserved_as_used(self):
        for old, new in zip(self.legacy["gpus"], self.modern["gpus"]):
            self.assertIsNone(old["memory_reserved_bytes"])
            self.assertEqual(old["memory_used_bytes"],
                             new["memory_used_bytes"] + new["memory_reserved_bytes"])
            self.assertEqual(old["pci_bus_id"], new["pci_bus_id"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
