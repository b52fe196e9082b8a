# SPDX-License-Identifier: MIT
"""`gpumeter` and gpumeter-serve: the one-shot commands never load the network libraries, and
`daemon` and `master` run in gpumeter-serve, exec'd in the same process."""

import os
import shutil
import signal
import subprocess
import tempfile
import unittest
from pathlib import Path

from gpumeter_testlib import BINARY_DIR, GPUMETER, clean_env, daemon_http_port, run, scenario

SERVE = BINARY_DIR / "lib" / "gpumeter" / "gpumeter-serve"
NETWORK_LIBRARIES = ("libcurl", "libssl", "libcrypto", "libmicrohttpd", "libcpp-httplib")


def loaded_objects(executable):
    """What the dynamic loader maps for `executable`, as ldd lists it."""
    listed = subprocess.run([str(executable)], env=clean_env(LD_TRACE_LOADED_OBJECTS=1),
                            capture_output=True, text=True, check=True, timeout=30).stdout
    return [line.split()[0] for line in listed.splitlines() if line.strip()]


class ServeHandover(unittest.TestCase):
    def test_the_one_shot_executable_loads_no_network_library(self):
        light = loaded_objects(GPUMETER)
        self.assertTrue(any(name.startswith("libstdc++") for name in light), light)
        for library in NETWORK_LIBRARIES:
            self.assertFalse(any(name.startswith(library) for name in light), (library, light))
        # The daemon's executable does need them: the check above can tell.
        served = loaded_objects(SERVE)
        self.assertTrue(any(name.startswith("libmicrohttpd") for name in served), served)
        self.assertTrue(any(name.startswith("libcurl") for name in served), served)

    def test_help_lists_every_command_and_each_serve_command_answers_its_own(self):
        listed = run("--help", check=True).stdout
        for command in ("list", "daemon", "master", "report", "tasks"):
            self.assertRegex(listed, rf"\n  {command} ")
        daemon_help = run("daemon", "--help", check=True).stdout
        self.assertIn("Usage: gpumeter daemon [OPTIONS]", daemon_help)
        self.assertIn("--listen", daemon_help)
        self.assertIn("--state-dir", daemon_help)
        master_help = run("master", "--help", check=True).stdout
        self.assertIn("Usage: gpumeter master [OPTIONS]", master_help)

    def test_usage_errors_of_serve_commands_are_the_same(self):
        wrong = run("daemon", "--no-such-option")
        self.assertEqual(wrong.returncode, 2)
        self.assertIn("--no-such-option", wrong.stderr)
        wrong = run("master")
        self.assertEqual(wrong.returncode, 2)
        self.assertIn("--config FILE is required", wrong.stderr)

    def test_the_daemon_keeps_the_pid_it_was_started_with(self):
        # A service manager watches and signals the pid it started: the handover is an exec.
        with tempfile.TemporaryDirectory() as scratch:
            work = Path(scratch)
            log = work / "daemon.log"
            with log.open("w") as out:
                daemon = subprocess.Popen(
                    [GPUMETER, "--simulate", str(scenario("workstation")), "daemon",
                     "--socket", str(work / "task.sock"), "--state-dir", str(work / "state"),
                     "--listen", "127.0.0.1:0"],
                    stdout=out, stderr=subprocess.STDOUT, env=clean_env())
            try:
                daemon_http_port(daemon, log)
                self.assertEqual(Path(f"/proc/{daemon.pid}/exe").resolve(), SERVE.resolve())
                daemon.send_signal(signal.SIGTERM)
                self.assertEqual(daemon.wait(timeout=60), 0, log.read_text())
            finally:
                if daemon.poll() is None:
                    daemon.kill()
                    daemon.wait()

    def test_a_missing_serve_executable_is_named(self):
        # gpumeter copied alone, without its lib/gpumeter: the one-shot commands still work,
        # and `daemon` says what is missing.
        with tempfile.TemporaryDirectory() as scratch:
            alone = Path(scratch) / "bin" / "gpumeter"
            alone.parent.mkdir()
            shutil.copy2(GPUMETER, alone)
            self.assertIn("gpumeter ", subprocess.run([str(alone), "--version"],
                                                      capture_output=True, text=True,
                                                      check=True).stdout)
            failed = subprocess.run([str(alone), "daemon", "--state-dir", scratch],
                                    capture_output=True, text=True, env=clean_env(), timeout=30)
            self.assertNotEqual(failed.returncode, 0)
            self.assertIn(str(Path(scratch) / "lib" / "gpumeter" / "gpumeter-serve"),
                          failed.stderr)
            self.assertIn("No such file or directory", failed.stderr)
            self.assertFalse(os.path.exists(Path(scratch) / "state.db"))


if __name__ == "__main__":
    unittest.main()
