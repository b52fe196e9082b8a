# SPDX-License-Identifier: MIT
"""Accounting mode end to end through the real dlopen of the simulated driver: `gpumeter
accounting status|enable|disable|clear|show` against examples/scenarios/accounting.json, with
the simulated clock held still (GPUMETER_SIM_EPOCH_US, GPUMETER_SIM_NOW_US) so that every
figure shown can be compared with what the scenario scripts. Mode changes go through the
state file named by GPUMETER_SIM_STATE, so each command runs in its own process, as a person
would run them."""

import copy
import json
import tempfile
import unittest
from pathlib import Path

from gpumeter_testlib import SCHEMAS, clean_env, list_json, run, scenario, validate_list_schema

EPOCH_US = 1_700_000_000_000_000
SCENARIO = json.loads(scenario("accounting").read_text())
GIB = 1024 ** 3


def validate_accounting_schema(document):
    import jsonschema  # Debian's python3-jsonschema
    schema = json.loads((SCHEMAS / "accounting.schema.json").read_text())
    jsonschema.validate(document, schema, cls=jsonschema.Draft202012Validator)


class Accounting(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="gpumeter-accounting-"))
        self.state = self.directory / "sim-state"
        self.scenarios = {}

    def scenario_file(self, privileged):
        if privileged not in self.scenarios:
            document = copy.deepcopy(SCENARIO)
            document["driver"]["privileged"] = privileged
            path = self.directory / f"accounting-{privileged}.json"
            path.write_text(json.dumps(document))
            self.scenarios[privileged] = path
        return self.scenarios[privileged]

    def gpumeter(self, *args, t=10, privileged=False, check=True):
        env = clean_env(GPUMETER_SIM_EPOCH_US=EPOCH_US,
                        GPUMETER_SIM_NOW_US=EPOCH_US + int(t * 1_000_000),
                        GPUMETER_SIM_STATE=self.state,
                        GPUMETER_DATABASE=self.directory / "none.db")
        result = run("--simulate", self.scenario_file(privileged), "--no-color", *args, env=env)
        if check:
            self.assertEqual(result.returncode, 0, result.stderr)
        return result

    def show(self, *args, **kwargs):
        document = json.loads(self.gpumeter("accounting", "show", "--json", *args,
                                            **kwargs).stdout)
        validate_accounting_schema(document)
        return document

    @staticmethod
    def records(document, gpu=0):
        found = next(g for g in document["gpus"] if g["index"] == gpu)
        return {r["pid"]: r for r in found["records"] or []}

    def test_show_gives_the_scripted_lifetime_figures(self):
        records = self.records(self.show())
        self.assertEqual(sorted(records), [51001, 51002, 51010, 51011, 51020])
        long_run = records[51001]
        # 90 % for 900 s, then 30 % for 900 s: a lifetime mean of 60 %.
        self.assertEqual(long_run["gpu_utilization_percent"], 60)
        self.assertEqual(long_run["memory_utilization_percent"], 40)
        self.assertEqual(long_run["max_memory_bytes"], 12 * GIB)
        self.assertEqual(long_run["time_ms"], 1_800_000)
        self.assertEqual(long_run["start_time_us"], EPOCH_US - 3000 * 1_000_000)
        self.assertFalse(long_run["running"])
        brief = records[51020]
        self.assertEqual((brief["gpu_utilization_percent"], brief["memory_utilization_percent"],
                          brief["max_memory_bytes"], brief["time_ms"]), (90, 45, 3 * GIB, 400))
        self.assertEqual(records[51002]["time_ms"], 500)

    def test_running_processes_have_no_run_time_and_are_named_from_the_host(self):
        records = self.records(self.show())
        training = records[51010]
        self.assertTrue(training["running"])
        self.assertIsNone(training["time_ms"])
        self.assertEqual(training["gpu_utilization_percent"], 50)
        self.assertEqual(training["user"], "alice")
        self.assertEqual(training["command"], "python3 train.py --epochs 90")
        self.assertIsNone(records[51001]["user"], "an exited process unknown to the history")
        self.assertEqual(records[51001]["unavailable"]["user"], "no_data")

    def test_a_gpu_with_accounting_off_has_no_records(self):
        gpu = self.show("--gpu", "1")["gpus"]
        self.assertEqual(len(gpu), 1)
        self.assertEqual((gpu[0]["enabled"], gpu[0]["buffer_size"], gpu[0]["records"]),
                         (False, 4000, None))
        table = self.gpumeter("accounting", "show", "--gpu", "1").stdout
        self.assertIn("GPU 1: accounting mode is disabled", table)

    def test_show_table(self):
        table = self.gpumeter("accounting", "show").stdout.splitlines()
        self.assertEqual(table[0].split()[:4], ["GPU", "PID", "USER", "GPU%"])
        row = next(line for line in table if " 51001 " in line)
        for cell in ("60%", "40%", "12.0GiB", "30m 0s", "exited"):
            self.assertIn(cell, row)
        alice = next(line for line in table if " 51010 " in line)
        for cell in ("alice", "running", "python3 train.py --epochs 90"):
            self.assertIn(cell, alice)

    def test_status(self):
        lines = self.gpumeter("accounting", "status").stdout.splitlines()
        self.assertEqual(lines[0].split(), ["GPU", "ACCOUNTING", "BUFFER", "RECORDS", "PERSISTENCE"])
        self.assertEqual(lines[1].split(), ["0", "enabled", "4000", "5", "on"])
        self.assertEqual(lines[2].split(), ["1", "disabled", "4000", "N/A", "off"])

    def test_list_json_carries_the_mode(self):
        env = clean_env(GPUMETER_SIM_EPOCH_US=EPOCH_US, GPUMETER_SIM_NOW_US=EPOCH_US + 10_000_000)
        document = list_json("accounting", env=env)
        validate_list_schema(document)
        self.assertEqual(document["gpus"][0]["accounting"],
                         {"enabled": True, "buffer_size": 4000, "records": 5})
        self.assertEqual(document["gpus"][1]["accounting"],
                         {"enabled": False, "buffer_size": 4000, "records": None})

    def test_changing_the_mode_needs_root(self):
        for action in ("enable", "disable", "clear"):
            result = self.gpumeter("accounting", action, "--gpu", "0", check=False)
            self.assertEqual(result.returncode, 1, action)
            self.assertIn("needs root (run with sudo)", result.stderr)
        self.assertEqual(len(self.records(self.show())), 5, "nothing changed")

    def test_enable_persists_across_processes_and_warns_without_persistence_mode(self):
        result = self.gpumeter("accounting", "enable", "--gpu", "1", privileged=True, t=1)
        self.assertIn("GPU 1: accounting mode enabled", result.stdout)
        self.assertIn("persistence mode is off on GPU 1", result.stderr)
        status = self.gpumeter("accounting", "status", "--gpu", "1", t=2).stdout.splitlines()
        self.assertEqual(status[1].split()[:2], ["1", "enabled"])
        self.assertEqual(self.records(self.show("--gpu", "1", t=2), gpu=1), {})

    def test_clear_drops_exited_records_only(self):
        result = self.gpumeter("accounting", "clear", "--gpu", "0", privileged=True)
        self.assertIn("records of exited processes cleared", result.stdout)
        self.assertEqual(sorted(self.records(self.show())), [51010, 51011])

    def test_disable_drops_everything_and_enable_starts_empty(self):
        self.gpumeter("accounting", "disable", "--gpu", "0", privileged=True, t=1)
        self.assertEqual(self.show(t=1)["gpus"][0]["enabled"], False)
        self.gpumeter("accounting", "enable", "--gpu", "0", privileged=True, t=1)
        # Only the process that starts after the mode came back (at t = 3) is accounted.
        self.assertEqual(sorted(self.records(self.show(t=10))), [51020])

    def test_a_gpu_in_mig_mode_refuses_the_mode_and_says_why(self):
        document = json.loads(scenario("h100-mig").read_text())
        document.setdefault("driver", {})["privileged"] = True
        path = self.directory / "h100-mig-privileged.json"
        path.write_text(json.dumps(document))
        env = clean_env(GPUMETER_SIM_STATE=self.state, GPUMETER_DATABASE=self.directory / "none.db")
        result = run("--simulate", path, "--no-color", "accounting", "enable", "--gpu", "0", env=env)
        self.assertEqual(result.returncode, 1, result.stdout)
        self.assertIn("GPU 0: MIG is enabled", result.stderr)
        status = run("--simulate", path, "--no-color", "accounting", "status", "--gpu", "0", env=env)
        self.assertEqual(status.returncode, 0, status.stderr)
        self.assertEqual(status.stdout.splitlines()[1].split()[:2], ["0", "disabled"])

    def test_no_such_gpu(self):
        result = self.gpumeter("accounting", "status", "--gpu", "7", check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("--gpu 7: no GPU has that index", result.stderr)


if __name__ == "__main__":
    unittest.main()
