# SPDX-License-Identifier: MIT
"""`gpumeter list` on the bundled scenarios, through the real loader and the simulator."""

import json
import re
import unittest

from pathlib import Path

from gpumeter_testlib import SCENARIOS, clean_env, list_json, run, simulate, validate_list_schema

BUSY_MEMORY = 936378368  # bytes held by each busy GPU's process in the 8-GPU scenario


# Scenarios whose nvmlInit fails for a one-shot command (driver-late: for its first seconds).
NO_DRIVER_AT_START = ("init-fails", "driver-late")


def scenario_names():
    return sorted(p.stem for p in SCENARIOS.glob("*.json"))


ENGINES = Path(__file__).resolve().parent / "scenarios" / "process-engines.json"


class ProcessEngineUse(unittest.TestCase):
    """Each process's SM, memory-controller, encoder and decoder use over the driver's last
    samples (tests/integration/scenarios/process-engines.json scripts constant rates)."""

    def test_json_gives_each_engine_and_why_not(self):
        document = json.loads(run("--simulate", ENGINES, "list", "--json", check=True).stdout)
        validate_list_schema(document)
        by_pid = {p["pid"]: p for gpu in document["gpus"] for p in gpu["processes"] or []}
        transcoder = by_pid[5100]
        self.assertEqual(transcoder["utilization_window_seconds"], 5)
        for key, value in [("sm_percent", 60), ("memory_percent", 25), ("encoder_percent", 40),
                           ("decoder_percent", 15)]:
            self.assertAlmostEqual(transcoder[key], value, delta=1.0, msg=key)
        self.assertAlmostEqual(by_pid[5101]["sm_percent"], 30, delta=1.0)
        self.assertEqual(by_pid[5101]["encoder_percent"], 0)
        unsupported = by_pid[5102]
        self.assertIsNone(unsupported["sm_percent"])
        self.assertEqual(unsupported["unavailable"]["sm_percent"], "not_supported")
        self.assertIsNone(unsupported["utilization_window_seconds"])

    def test_mig_processes_say_mig(self):
        document = list_json("h100-mig")
        processes = [p for gpu in document["gpus"] for p in gpu["processes"] or []]
        self.assertGreater(len(processes), 0)
        for process in processes:
            self.assertIsNone(process["decoder_percent"])
            self.assertEqual(process["unavailable"]["decoder_percent"], "mig")

    def test_the_process_table(self):
        table = run("--simulate", ENGINES, "list", "--processes", check=True,
                    env=clean_env(NO_COLOR="1")).stdout
        lines = table.splitlines()
        self.assertEqual(lines[1].split(), ["GPU", "PID", "USER", "SM", "MEM", "ENC", "DEC",
                                            "GPU", "MEMORY", "SINCE", "COMMAND"])
        rows = {line.split()[1]: line.split() for line in lines[2:5]}
        self.assertEqual(rows["5100"][2:7], ["vera", "60%", "25%", "40%", "15%"])
        self.assertEqual(rows["5101"][2:7], ["walt", "30%", "10%", "0%", "0%"])
        self.assertEqual(rows["5102"][3:7], ["N/A"] * 4)
        self.assertIn("GPU 1: SM, MEM, ENC, DEC N/A: the driver gives no per-process "
                      "utilisation (not_supported).", table)
        mig = simulate("h100-mig", "list", "--processes", check=True).stdout
        self.assertIn("MIG", mig.splitlines()[-1])
        refused = simulate("dgx-8gpu", "list", "--processes", "--json")
        self.assertEqual(refused.returncode, 2, refused.stderr)


class SimulateGivesTheLibraryPath(unittest.TestCase):
    """--simulate hands the simulated library's path to the NVML loader itself: it wins over
    $GPUMETER_NVML_LIBRARY and leaves the environment of child processes as it was, but for
    the scenario the simulated library reads."""

    def test_wins_over_the_environment(self):
        env = clean_env(GPUMETER_NVML_LIBRARY="/nonexistent/libnvidia-ml.so.1")
        listed = simulate("dgx-8gpu", "list", "--json", env=env, check=True)
        self.assertEqual(len(json.loads(listed.stdout)["gpus"]), 8)

    def test_a_child_sees_the_scenario_and_not_a_library_path(self):
        child = simulate("dgx-8gpu", "run", "--", "env", env=clean_env(), check=True)
        names = {line.split("=", 1)[0] for line in child.stdout.splitlines() if "=" in line}
        self.assertIn("GPUMETER_SIM_SCENARIO", names)
        self.assertNotIn("GPUMETER_NVML_LIBRARY", names)


class EightGpuMachine(unittest.TestCase):
    def setUp(self):
        self.doc = list_json("dgx-8gpu")

    def test_eight_gpus_three_busy(self):
        gpus = self.doc["gpus"]
        self.assertEqual([g["index"] for g in gpus], list(range(8)))
        busy = [g["index"] for g in gpus if g["processes"]]
        self.assertEqual(busy, [1, 2, 3])
        for gpu in gpus:
            expected = "in_use" if gpu["index"] in (1, 2, 3) else "free"
            self.assertEqual(gpu["status"], expected, gpu["index"])

    def test_busy_gpus_run_one_process_with_the_scripted_memory(self):
        for gpu in self.doc["gpus"][1:4]:
            self.assertEqual(len(gpu["processes"]), 1)
            process = gpu["processes"][0]
            self.assertEqual(process["used_memory_bytes"], BUSY_MEMORY)
            self.assertGreaterEqual(gpu["utilization_gpu_percent"], 99)
            self.assertTrue(process["user"])
            self.assertTrue(process["command"])
            self.assertIsInstance(process["start_time_us"], int)

    def test_free_gpus_are_idle(self):
        for gpu in self.doc["gpus"]:
            if gpu["index"] not in (1, 2, 3):
                self.assertEqual(gpu["utilization_gpu_percent"], 0)
                self.assertEqual(gpu["processes"], [])

    def test_memory_adds_up(self):
        for gpu in self.doc["gpus"]:
            total = gpu["memory_total_bytes"]
            self.assertEqual(gpu["memory_used_bytes"] + gpu["memory_free_bytes"]
                             + (gpu["memory_reserved_bytes"] or 0), total)

    def test_identity_fields(self):
        uuids = {g["uuid"] for g in self.doc["gpus"]}
        self.assertEqual(len(uuids), 8)
        for gpu in self.doc["gpus"]:
            self.assertRegex(gpu["uuid"], r"^GPU-[0-9a-f-]{36}$")
            self.assertRegex(gpu["pci_bus_id"], r"^[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.0$")
            self.assertTrue(gpu["name"])
        self.assertTrue(self.doc["driver"]["driver_version"])
        self.assertRegex(self.doc["driver"]["cuda_driver_version"], r"^\d+\.\d+$")

    def test_table_shows_every_gpu_and_the_busy_processes(self):
        out = simulate("dgx-8gpu", "list", "--no-color", check=True).stdout
        rows = [line for line in out.splitlines() if re.match(r"^\s*\d+\s+\[", line)]
        self.assertEqual(len(rows), 8, out)
        self.assertEqual(sum("[~]" in r for r in rows), 3, out)
        self.assertEqual(sum("[ ]" in r for r in rows), 5, out)
        self.assertIn("893", out)  # 936378368 bytes = 893 MiB
        self.assertNotIn("\x1b[", out)

    def test_no_color_env_is_honoured_and_pipes_get_no_colour(self):
        out = simulate("dgx-8gpu", "list", check=True).stdout
        self.assertNotIn("\x1b[", out)


class Workstation(unittest.TestCase):
    def setUp(self):
        self.doc = list_json("workstation")

    def test_mixed_models(self):
        names = {g["name"] for g in self.doc["gpus"]}
        self.assertTrue(any("1070" in n for n in names), names)
        self.assertTrue(any("1080 Ti" in n for n in names), names)

    def test_hidden_owner_marks_the_gpu_unknown(self):
        statuses = [g["status"] for g in self.doc["gpus"]]
        self.assertIn("unknown_owner", statuses)
        table = simulate("workstation", "list", "--no-color", check=True).stdout
        self.assertIn("[!]", table)

    def test_several_users_and_jupyter_kernels(self):
        processes = [p for g in self.doc["gpus"] for p in g["processes"]]
        users = {p["user"] for p in processes if p["user"]}
        self.assertGreaterEqual(len(users), 2, users)
        self.assertIn("jupyter", {p["short_command"] for p in processes})

    def test_consumer_gpus_lack_ecc(self):
        for gpu in self.doc["gpus"]:
            self.assertIsNone(gpu["ecc_errors_corrected_total"])


class EmptyMachine(unittest.TestCase):
    def test_zero_gpus_is_not_an_error(self):
        result = simulate("empty", "list", "--no-color")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("no GPU", result.stdout + result.stderr)
        self.assertEqual(list_json("empty")["gpus"], [])


class EveryScenario(unittest.TestCase):
    def test_json_matches_the_published_schema(self):
        for name in scenario_names():
            if name in NO_DRIVER_AT_START:
                continue
            with self.subTest(scenario=name):
                result = simulate(name, "list", "--json")
                self.assertEqual(result.returncode, 0, result.stderr)
                validate_list_schema(json.loads(result.stdout))

    def test_table_renders(self):
        for name in scenario_names():
            if name in NO_DRIVER_AT_START:
                continue
            with self.subTest(scenario=name):
                result = simulate(name, "list", "--no-color")
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertTrue(result.stdout.strip())


class Watch(unittest.TestCase):
    def test_watch_refreshes_the_given_number_of_times(self):
        result = simulate("dgx-8gpu", "list", "--no-color", "--watch", "0.1", "--count", "3",
                          check=True)
        self.assertEqual(result.stdout.count("[~]"), 9, result.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
