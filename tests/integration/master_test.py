"""`gpumeter master --once` end to end: the real binary polls fake agents over real HTTP (one
good, one with a token, one refusing the token, one answering garbage, one too slow, one
down) and this machine through the simulated library, and prints the fleet document."""

import json
import tempfile
import unittest
from pathlib import Path

from fake_agents import FakeAgent, closed_port, garbage, serves, slow
from gpumeter_testlib import SCHEMAS, list_json, scenario, run


def validate_fleet_schema(document):
    import jsonschema  # Debian's python3-jsonschema
    fleet = json.loads((SCHEMAS / "fleet.schema.json").read_text())
    listing = json.loads((SCHEMAS / "list.schema.json").read_text())
    try:
        from referencing import Registry, Resource  # jsonschema 4.18 and later
        registry = Registry().with_resource(listing["$id"], Resource.from_contents(listing))
        validator = jsonschema.Draft202012Validator(fleet, registry=registry)
    except ImportError:
        resolver = jsonschema.RefResolver.from_schema(fleet, store={listing["$id"]: listing})
        validator = jsonschema.Draft202012Validator(fleet, resolver=resolver)
    validator.validate(document)


class MasterOnce(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.status = json.dumps(list_json("dgx-8gpu"))
        cls.directory = tempfile.TemporaryDirectory()
        cls.folder = Path(cls.directory.name)
        (cls.folder / "gpu02.token").write_text("s3cret\n")
        (cls.folder / "wrong.token").write_text("guess\n")
        cls.agents = {
            "good": FakeAgent(serves(cls.status)),
            "with-token": FakeAgent(serves(cls.status, token="s3cret")),
            "wrong-token": FakeAgent(serves(cls.status, token="s3cret")),
            "garbage": FakeAgent(garbage),
            "slow": FakeAgent(slow(3, cls.status)),
        }

    @classmethod
    def tearDownClass(cls):
        for agent in cls.agents.values():
            agent.close()
        cls.directory.cleanup()

    def write_config(self, text):
        path = self.folder / "master.toml"
        path.write_text(text)
        return path

    def fleet_config(self):
        agents = self.agents
        return self.write_config(f"""
interval = "2s"
timeout = "500ms"

[[agent]]
url = "self"
name = "master"

[[agent]]
name = "good"
url = "{agents['good'].url}"

[[agent]]
name = "with-token"
url = "{agents['with-token'].url}/"
token-file = "gpu02.token"

[[agent]]
name = "wrong-token"
url = "{agents['wrong-token'].url}"
token-file = "{self.folder / 'wrong.token'}"

[[agent]]
name = "garbage"
url = "{agents['garbage'].url}"

[[agent]]
name = "slow"
url = "{agents['slow'].url}"

[[agent]]
name = "down"
url = "http://127.0.0.1:{closed_port()}"
""")

    def test_every_agent_classified(self):
        result = run("--simulate", scenario("workstation"), "master", "--config",
                     self.fleet_config(), "--once", check=True)
        document = json.loads(result.stdout)
        validate_fleet_schema(document)
        self.assertEqual(document["source"], "agents")
        nodes = {node["name"]: node for node in document["nodes"]}
        self.assertEqual([node["name"] for node in document["nodes"]],
                         ["master", "good", "with-token", "wrong-token", "garbage", "slow",
                          "down"])
        states = {name: node["state"] for name, node in nodes.items()}
        self.assertEqual(states, {"master": "ok", "good": "ok", "with-token": "ok",
                                  "wrong-token": "unauthorized", "garbage": "garbage",
                                  "slow": "unreachable", "down": "unreachable"})
        self.assertEqual(nodes["master"]["url"], "self")
        self.assertEqual(nodes["master"]["status"]["source"], "nvml (simulated: workstation.json)")
        self.assertEqual(len(nodes["good"]["status"]["gpus"]), 8)
        self.assertEqual(nodes["wrong-token"]["error"], "HTTP 401: the agent refused the token")
        self.assertEqual(nodes["garbage"]["error"], "not JSON (at byte 1)")
        self.assertEqual(nodes["slow"]["error"], "no answer within 0.5s")
        self.assertEqual(nodes["down"]["error"],
                         "cannot connect (refused, or no route to the host)")
        for name in ("wrong-token", "garbage", "slow", "down"):
            self.assertIsNone(nodes[name]["status"], name)
            self.assertIsNone(nodes[name]["age_seconds"], name)
            self.assertEqual(nodes[name]["poll"],
                             {"attempts": 1, "failures": 1, "skipped": 0,
                              "consecutive_failures": 1}, name)

    def test_self_without_a_driver_is_unreachable_and_the_rest_carries_on(self):
        config = self.write_config(f"""
[[agent]]
url = "self"
name = "master"
[[agent]]
url = "{self.agents['good'].url}"
name = "good"
""")
        result = run("master", "--config", config, "--once", check=True)
        nodes = {node["name"]: node for node in json.loads(result.stdout)["nodes"]}
        self.assertEqual(nodes["master"]["state"], "unreachable")
        self.assertIn("NVML", nodes["master"]["error"])
        self.assertEqual(nodes["good"]["state"], "ok")

    def test_bad_config_names_file_line_and_what_was_expected(self):
        config = self.write_config('interval = "5s"\n\n[[agent]]\nurl = "gpu01:9416"\n')
        result = run("master", "--config", config, "--once")
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stderr,
                         f'{config}:4: url = "gpu01:9416": expected "self" or an agent\'s URL; '
                         '"gpu01:9416": expected a URL that starts with http:// or https://\n')
        self.assertEqual(result.stdout, "")

    def test_no_agents_says_what_is_missing(self):
        config = self.write_config('interval = "5s"\n')
        result = run("master", "--config", config, "--once")
        self.assertEqual(result.returncode, 2)
        self.assertIn("no [[agent]] tables", result.stderr)

    def test_unreadable_token_file_is_named(self):
        config = self.write_config(f"""
[[agent]]
url = "{self.agents['good'].url}"
token-file = "missing.token"
""")
        result = run("master", "--config", config, "--once")
        self.assertNotEqual(result.returncode, 0)
        self.assertEqual(result.stderr,
                         f"{self.folder / 'missing.token'}: cannot read: No such file or "
                         "directory\n")


if __name__ == "__main__":
    unittest.main()
