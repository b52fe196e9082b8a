# SPDX-License-Identifier: MIT
"""MIG end to end: the real gpumeter through the real loader against the simulated library,
on examples/scenarios/h100-mig.json. Every figure checked here is the one the scenario
scripts."""

import json
import re
import tempfile
import unittest
from pathlib import Path

from gpumeter_testlib import (SCENARIOS, clean_env, list_json, run, simulate,
                              validate_list_schema)

SCENARIO = json.loads((SCENARIOS / "h100-mig.json").read_text())
INSTANCES = SCENARIO["devices"][0]["mig"]["instances"]
NO_PROCESS_UTIL = "MIG: the driver reports no per-process utilisation"


def placed_pids(gpu_instance):
    return [p["pid"] for p in SCENARIO["processes"] if p["mig"]["gpu_instance"] == gpu_instance]


def placed_memory(gpu_instance):
    return sum(p["used_memory_bytes"] for p in SCENARIO["processes"]
               if p["mig"]["gpu_instance"] == gpu_instance)


class ListJson(unittest.TestCase):
    def setUp(self):
        self.document = list_json("h100-mig")
        self.gpu = self.document["gpus"][0]

    def test_matches_the_schema(self):
        validate_list_schema(self.document)

    def test_every_instance_as_scripted(self):
        mig = self.gpu["mig"]
        self.assertTrue(mig["enabled"])
        self.assertEqual(len(mig["devices"]), len(INSTANCES))
        for shown, scripted in zip(mig["devices"], INSTANCES):
            with self.subTest(gpu_instance=scripted["gpu_instance"]):
                self.assertEqual(shown["gpu_instance_id"], scripted["gpu_instance"])
                self.assertEqual(shown["compute_instance_id"], scripted["compute_instance"])
                self.assertEqual(shown["profile"], scripted["profile"])
                self.assertEqual(shown["uuid"], scripted["uuid"])
                self.assertEqual(shown["memory_total_bytes"], scripted["memory_total_bytes"])
                self.assertEqual(shown["memory_used_bytes"],
                                 placed_memory(scripted["gpu_instance"]))
                self.assertEqual(shown["pids"], placed_pids(scripted["gpu_instance"]))

    def test_processes_carry_their_instance(self):
        by_pid = {p["pid"]: p for p in self.gpu["processes"]}
        for scripted in SCENARIO["processes"]:
            self.assertEqual(by_pid[scripted["pid"]]["mig"],
                             {"gpu_instance_id": scripted["mig"]["gpu_instance"],
                              "compute_instance_id": scripted["mig"]["compute_instance"]})

    def test_no_utilisation_is_made_up(self):
        for key in ("utilization_gpu_percent", "utilization_memory_percent"):
            self.assertIsNone(self.gpu[key])
            self.assertEqual(self.gpu["unavailable"][key], "mig")
        for device in self.gpu["mig"]["devices"]:
            self.assertIsNone(device["process_utilization"])
            self.assertEqual(device["unavailable"]["process_utilization"], "mig")

    def test_gpus_without_mig_say_so(self):
        gpu = list_json("dgx-8gpu")["gpus"][0]
        self.assertIsNone(gpu["mig"])
        self.assertEqual(gpu["unavailable"]["mig"], "not_supported")


class ListTable(unittest.TestCase):
    def test_instances_under_their_gpu_with_na_utilisation(self):
        result = simulate("h100-mig", "list", check=True)
        lines = result.stdout.splitlines()
        gpu_row = next(i for i, line in enumerate(lines) if "H100" in line)
        rows = lines[gpu_row + 1:gpu_row + 1 + len(INSTANCES)]
        for row, scripted in zip(rows, INSTANCES):
            self.assertRegex(row, rf"^\s+MIG {re.escape(scripted['profile'])}\s+GI "
                                  rf"{scripted['gpu_instance']} CI {scripted['compute_instance']}"
                                  r"\s+N/A\s")
            for pid in placed_pids(scripted["gpu_instance"]):
                self.assertIn(str(pid), row)
        self.assertIn("34.0GiB / 40.0GiB", rows[0])
        self.assertIn(NO_PROCESS_UTIL, result.stdout)


class Available(unittest.TestCase):
    def env(self):
        return clean_env(XDG_RUNTIME_DIR=tempfile.mkdtemp(prefix="gpumeter-rt-"))

    def test_free_mig_device_by_uuid(self):
        result = simulate("h100-mig", "available", "--mig", env=self.env())
        self.assertEqual(result.returncode, 0, result.stderr)
        empty = [i["uuid"] for i in INSTANCES if not placed_pids(i["gpu_instance"])]
        self.assertEqual(result.stdout.strip(), ",".join(empty))

    def test_memory_threshold_does_not_admit_devices_with_processes(self):
        result = simulate("h100-mig", "available", "--mig", "-l", "2", "--max-memory", "100",
                          env=self.env())
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout, "")
        self.assertIn("no free MIG device", result.stderr)

    def test_a_gpu_in_mig_mode_is_not_offered_whole(self):
        result = simulate("h100-mig", "available", "--no-reserve", env=self.env())
        self.assertEqual(result.returncode, 1)
        self.assertIn("in MIG mode", result.stderr)


class Prometheus(unittest.TestCase):
    def test_mig_families_and_no_process_sm_figure(self):
        text = simulate("h100-mig", "list", "--prometheus", check=True, timeout=120).stdout
        for scripted in INSTANCES:
            labels = (f'gpu="0",gpu_instance="{scripted["gpu_instance"]}",'
                      f'compute_instance="{scripted["compute_instance"]}",'
                      f'profile="{scripted["profile"]}",uuid="{scripted["uuid"]}"')
            self.assertRegex(text, rf'gpumeter_mig_memory_used_bytes\{{host="[^"]*",'
                                   rf'{re.escape(labels)}\}} {placed_memory(scripted["gpu_instance"])}\n')
            self.assertRegex(text, rf'gpumeter_mig_memory_total_bytes\{{host="[^"]*",'
                                   rf'{re.escape(labels)}\}} {scripted["memory_total_bytes"]}\n')
            self.assertRegex(text, rf'gpumeter_mig_processes\{{host="[^"]*",'
                                   rf'{re.escape(labels)}\}} {len(placed_pids(scripted["gpu_instance"]))}\n')
        # Memory per process is known; an SM figure per process is not, so it is absent.
        self.assertIn("gpumeter_process_gpu_memory_used_bytes{", text)
        self.assertNotIn("gpumeter_process_sm_utilization_ratio{", text)
        self.assertNotIn("gpumeter_gpu_sm_utilization_ratio{", text)


class Gpm(unittest.TestCase):
    """GPM needs two readings at least 100 ms apart: `list --watch 0.2 --count 2`."""

    def test_second_reading_gives_the_scripted_figures(self):
        result = simulate("h100-mig", "list", "--json", "--watch", "0.2", "--count", "2",
                          check=True)
        first, second = (json.loads(line) for line in result.stdout.splitlines())
        self.assertIsNone(first["gpus"][0]["gpm_sm_activity_percent"])
        self.assertEqual(first["gpus"][0]["unavailable"]["gpm_sm_activity_percent"], "no_data")
        gpu = second["gpus"][0]
        # 90 % + 20..70 % + 5 % of the three processes, capped at 100 for the whole GPU.
        # Means over a real-time window: exact up to the last bits of a double.
        self.assertAlmostEqual(gpu["gpm_sm_activity_percent"], 100, places=9)
        self.assertAlmostEqual(gpu["gpm_sm_occupancy_percent"], 50, places=9)  # ratio 0.5
        self.assertAlmostEqual(gpu["gpm_tensor_activity_percent"], 25, places=9)  # ratio 0.25
        pcie = SCENARIO["devices"][0]["pci"]
        self.assertEqual(gpu["gpm_pcie_tx_bytes_per_second"], pcie["tx_kbps"] * 1024)
        self.assertEqual(gpu["gpm_pcie_rx_bytes_per_second"], pcie["rx_kbps"] * 1024)
        by_instance = {d["gpu_instance_id"]: d for d in gpu["mig"]["devices"]}
        for gi, sm, mem in ((2, 90, 55), (9, 5, 2), (10, 0, 0)):  # constant profiles
            with self.subTest(gpu_instance=gi):
                self.assertAlmostEqual(by_instance[gi]["gpm_sm_activity_percent"], sm, places=9)
                self.assertAlmostEqual(by_instance[gi]["gpm_dram_bandwidth_percent"], mem,
                                       places=9)
        validate_list_schema(second)


class EmptySlots(unittest.TestCase):
    def test_instances_behind_empty_slots_are_found(self):
        text = json.dumps({
            "devices": [{"name": "NVIDIA A100-SXM4-40GB", "architecture": "ampere",
                         "memory_total_bytes": 42949672960,
                         "mig": {"max_count": 7, "instances": [
                             {"slot": 2, "gpu_instance": 5, "profile": "2g.10gb",
                              "memory_total_bytes": 10737418240},
                             {"slot": 6, "gpu_instance": 13, "profile": "1g.5gb",
                              "memory_total_bytes": 5368709120}]}}]})
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "holes.json"
            path.write_text(text)
            result = run("--simulate", path, "list", "--json", check=True)
        devices = json.loads(result.stdout)["gpus"][0]["mig"]["devices"]
        self.assertEqual([(d["gpu_instance_id"], d["profile"]) for d in devices],
                         [(5, "2g.10gb"), (13, "1g.5gb")])


if __name__ == "__main__":
    unittest.main()
