# SPDX-License-Identifier: MIT
"""`gpumeter top` in a real pseudo-terminal: tmux runs it at 80x24 against the simulator, sends
it keys and reads the screen back (`capture-pane`). Each screen is compared with its golden
file in tests/top/golden/ (scripts/update-golden.sh rewrites them), after the start, sorting,
filtering by user, picking a GPU, the tree, the help, resizing to 120x30 and back to 80x24, and
on the MIG, vGPU, lost-GPU and empty scenarios. The moment is fixed with libfaketime, as for
the other golden outputs, and top samples once a minute, so that each screen shows one round.
Also: NO_COLOR leaves the screen without colours, and q gives the terminal back; and
`top --connect` on a running daemon: its figures and history, its tasks and users, its errors."""

import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
from pathlib import Path

import gpumeter_testlib as lib
from golden_test import EPOCH_US, FAKETIME, MOMENT, UPDATE

TMUX = shutil.which("tmux")
HERE = Path(__file__).resolve().parent
GOLDEN = lib.SOURCE_DIR / "tests" / "top" / "golden"
ENGINES = HERE / "scenarios" / "process-engines.json"
TIMEOUT_S = 30 if os.environ.get("GPUMETER_TEST_SANITIZED") != "1" else 90


class Top:
    """One `gpumeter top` in its own tmux server."""

    def __init__(self, scenario, width=80, height=24, args=(), fake_time=True, interval=60,
                 **env):
        self.socket = f"gpumeter-top-{os.getpid()}-{time.monotonic_ns()}"
        variables = {"TZ": "UTC0", "LANG": "C.UTF-8",
                     "ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") +
                     ":verify_asan_link_order=0", **env}
        if fake_time:  # else the scenario's clock is the daemon's beside it
            variables.update(LD_PRELOAD=FAKETIME, FAKETIME=MOMENT, DONT_FAKE_MONOTONIC="1",
                             GPUMETER_SIM_EPOCH_US=str(EPOCH_US))
        simulate = ["--simulate", str(scenario)] if scenario is not None else []
        command = ["env", *[f"{k}={v}" for k, v in variables.items()], lib.GPUMETER, *simulate,
                   "top", "--interval", str(interval), *map(str, args)]
        self.tmux("new-session", "-d", "-x", str(width), "-y", str(height), "-s", "top",
                  *map(str, command))
        self.tmux("set-option", "-t", "top", "remain-on-exit", "on")

    def tmux(self, *args, check=True):
        return subprocess.run([TMUX, "-L", self.socket, "-f", "/dev/null", *args],
                              capture_output=True, text=True, check=check, timeout=10)

    def screen(self, colours=False):
        args = ["capture-pane", "-p", "-t", "top"] + (["-e"] if colours else [])
        return self.tmux(*args).stdout

    def wait_for(self, pattern):
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            text = self.screen()
            if re.search(pattern, text) and "sampling..." not in text:
                time.sleep(0.2)  # let the paint finish
                return self.screen()
            if time.monotonic() > deadline:
                raise AssertionError(f"no {pattern!r} on the screen:\n{text}")
            time.sleep(0.1)

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "top", *keys)

    def dead(self):
        return self.tmux("display-message", "-p", "-t", "top", "#{pane_dead}").stdout.strip()

    def close(self):
        self.tmux("kill-server", check=False)


def neutral(text):
    """The screen with the machine's name written as HOST, without trailing blank lines."""
    text = re.sub(rf"(?<=gpumeter top  ){re.escape(os.uname().nodename)}(?=  )", "HOST", text)
    return "\n".join(line.rstrip() for line in text.rstrip("\n").splitlines()) + "\n"


@unittest.skipUnless(TMUX and FAKETIME, "tmux or libfaketime is not installed (scripts/install-deps.sh)")
class TopInATerminal(unittest.TestCase):
    def check(self, name, text):
        path = GOLDEN / f"{name}.txt"
        got = neutral(text)
        if UPDATE:
            GOLDEN.mkdir(parents=True, exist_ok=True)
            path.write_text(got)
            return
        self.assertTrue(path.exists(), f"{path} is missing: scripts/update-golden.sh writes it")
        self.assertEqual(got, path.read_text(), f"{name}: the screen differs from {path}")

    def start(self, scenario, **kwargs):
        top = Top(scenario, **kwargs)
        self.addCleanup(top.close)
        return top

    def test_keys_change_the_screen(self):
        top = self.start(ENGINES)
        start = top.wait_for(r"ffmpeg")
        self.check("start", start)
        # The transcoder holds less memory than the trainer: sorted by GPU memory, it is second.
        rows = [line.split()[1] for line in start.splitlines() if re.match(r"\s+\d+\s+51\d\d ", line)]
        self.assertEqual(rows, ["5101", "5100", "5102"])
        top.keys(">")  # sort by SM (after GPU MEM)
        self.check("sort-sm", top.wait_for(r"SM▼"))
        top.keys("u")  # the first user: vera
        self.check("user-vera", top.wait_for(r"user vera"))
        top.keys("u", "u", "1")  # walt, then everyone; GPU 1
        gpu1 = top.wait_for(r"GPU 1\b")
        self.check("gpu-1", gpu1)
        self.assertNotIn("ffmpeg", gpu1)
        top.keys("1", "t")  # all GPUs again; a tree by user
        self.check("tree-user", top.wait_for(r"▾ walt"))
        top.keys("h")
        self.check("help", top.wait_for(r"Keys"))
        top.keys("x")  # any key closes the help
        top.wait_for(r"COMMAND")
        top.tmux("resize-window", "-t", "top", "-x", "120", "-y", "30")
        self.check("wide", top.wait_for(r"AGE"))
        top.tmux("resize-window", "-t", "top", "-x", "80", "-y", "24")
        narrow = top.wait_for(r"COMMAND")
        self.assertNotIn("AGE", narrow)
        self.assertTrue(all(len(line) <= 80 for line in narrow.splitlines()))
        top.keys("q")
        deadline = time.monotonic() + TIMEOUT_S
        while top.dead() != "1":
            self.assertLess(time.monotonic(), deadline, "q did not end top")
            time.sleep(0.1)

    def test_scenarios(self):
        for name, pattern in [("h100-mig", r"MIG 3g\.40gb"), ("vgpu-host", r"blender"),
                              ("lost-gpu", r"fell off the bus"), ("empty", r"no GPUs found")]:
            with self.subTest(name):
                top = self.start(lib.scenario(name))
                self.check(name, top.wait_for(pattern))

    def test_the_daemons_tasks_and_users_panes(self):
        """Tab shows the daemon's tasks (its socket) and each user's GPU-hours today (its
        history, with the quota file's standing); without a daemon, why there are none."""
        state = Path(tempfile.mkdtemp(prefix="gpumeter-top-"))
        self.addCleanup(shutil.rmtree, state, ignore_errors=True)
        daemon = subprocess.Popen(
            [lib.GPUMETER, "--simulate", ENGINES, "daemon", "--state-dir", state, "--socket",
             state / "task.sock", "--listen", "127.0.0.1:0", "--interval", "200ms",
             "--record-interval", "1s"], env=lib.clean_env(), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        self.addCleanup(daemon.wait, 30)
        self.addCleanup(daemon.terminate)
        deadline = time.monotonic() + TIMEOUT_S
        while not (state / "task.sock").exists() or not (state / "gpumeter.db").exists():
            self.assertLess(time.monotonic(), deadline, "the daemon did not start")
            time.sleep(0.1)
        time.sleep(2.5)  # a record or two
        (state / "quota.txt").write_text("walt = 1h per day\n")
        top = self.start(ENGINES, width=120, args=["--socket", state / "task.sock", "--database",
                                                   state / "gpumeter.db", "--quota",
                                                   state / "quota.txt"], fake_time=False)
        top.wait_for(r"ffmpeg")
        top.keys("Tab")
        tasks = top.wait_for(r"Tasks of the last 10 minutes")
        self.assertIn("No tasks.", tasks)
        top.keys("Tab")
        users = top.wait_for(r"walt +\d")
        self.assertRegex(users, r"vera +\d")
        self.assertRegex(users, r"walt .* 1h/day")
        alone = self.start(ENGINES, args=["--socket", state / "none.sock", "--database",
                                          state / "none.db"], fake_time=False)
        alone.wait_for(r"ffmpeg")
        alone.keys("Tab")
        self.assertIn("no tasks:", alone.wait_for(r"Tasks of the last"))
        alone.keys("Tab")
        self.assertIn("no history:", alone.wait_for(r"GPU-hours per user"))

    def test_colours_and_no_color(self):
        coloured = self.start(ENGINES)
        self.assertRegex(coloured.wait_for(r"ffmpeg") and coloured.screen(colours=True),
                         r"\x1b\[[0-9;]*3[1-6]m")
        plain = self.start(ENGINES, NO_COLOR="1")
        plain.wait_for(r"ffmpeg")
        self.assertNotRegex(plain.screen(colours=True), r"\x1b\[[0-9;]*3[0-7]m")


class ConnectedDaemon:
    """A daemon on the engines scenario serving HTTP with a token, with one task done and one
    open, for `top --connect`; `url`, `token` (the file) and `status()` (its /api/v1/status)."""

    def __init__(self, test, tls=False):
        self.state = Path(tempfile.mkdtemp(prefix="gpumeter-top-connect-"))
        test.addCleanup(shutil.rmtree, self.state, ignore_errors=True)
        self.token = self.state / "token"
        self.token.write_text("s3cret-token\n")
        self.token.chmod(0o600)
        self.context = None
        tls_args = []
        if tls:  # a certificate for 127.0.0.1 made by openssl, trusted by this file alone
            self.cert = self.state / "cert.pem"
            subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                            "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj",
                            "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout",
                            self.state / "key.pem", "-out", self.cert], check=True,
                           capture_output=True)
            self.context = ssl.create_default_context(cafile=str(self.cert))
            tls_args = ["--tls-cert", self.cert, "--tls-key", self.state / "key.pem"]
        log = self.state / "daemon.log"
        with open(log, "w") as out:
            self.process = subprocess.Popen(
                [lib.GPUMETER, "--simulate", ENGINES, "daemon", "--state-dir", self.state,
                 "--socket", self.state / "task.sock", "--listen", "127.0.0.1:0", "--token-file",
                 self.token, "--interval", "200ms", "--record-interval", "1s", *tls_args],
                env=lib.clean_env(), stdout=subprocess.DEVNULL, stderr=out)
        test.addCleanup(self.stop)
        deadline = time.monotonic() + TIMEOUT_S
        while not (found := re.search(r"serving HTTP on (https?://127\.0\.0\.1:\d+)",
                                      log.read_text())):
            test.assertIsNone(self.process.poll(), log.read_text())
            test.assertLess(time.monotonic(), deadline, log.read_text())
            time.sleep(0.05)
        self.url = found.group(1)
        deadline = time.monotonic() + TIMEOUT_S
        while True:  # the first round (503 before it)
            try:
                self.status()
                break
            except urllib.error.HTTPError as error:
                test.assertEqual(error.code, 503)
                test.assertLess(time.monotonic(), deadline, "the daemon did not sample")
                time.sleep(0.1)
        sys.path.insert(0, str(lib.SOURCE_DIR / "clients" / "python"))
        import gpumeter
        with gpumeter.Client(str(self.state / "task.sock")) as client:
            task = client.begin("decode-cam3")
            time.sleep(0.5)
            client.end(task)
            client.begin("track-cam5")  # still open: the test process holds it
        # Six seconds of rounds and records before top starts: history it did not see.
        time.sleep(6)

    def status(self):
        request = urllib.request.Request(f"{self.url}/api/v1/status",
                                         headers={"Authorization": "Bearer s3cret-token"})
        with urllib.request.urlopen(request, timeout=10, context=self.context) as reply:
            return json.load(reply)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)


class TopConnected(unittest.TestCase):
    """`top --connect`: a running daemon's figures and history over HTTP, no driver here."""

    def top_once(self, *args):
        # No --simulate and an NVML that cannot load: top must not need a driver of its own.
        env = lib.clean_env(COLUMNS="120", LINES="30", TZ="UTC0", LANG="C.UTF-8",
                            GPUMETER_NVML_LIBRARY="/nonexistent/libnvidia-ml.so.1")
        return subprocess.run([lib.GPUMETER, "top", *map(str, args)], capture_output=True,
                              text=True, env=env, timeout=TIMEOUT_S)

    def test_once_shows_the_daemons_figures_and_its_history(self):
        daemon = ConnectedDaemon(self)
        done = self.top_once("--connect", daemon.url, "--token-file", daemon.token, "--once")
        self.assertEqual(done.returncode, 0, done.stderr)
        screen = done.stdout
        # Each process's engines as the daemon's status document gives them.
        for process in daemon.status()["gpus"][0]["processes"]:
            figures = r"\s+".join(f"{process[key]:.0f}%" for key in
                                  ("sm_percent", "memory_percent", "encoder_percent",
                                   "decoder_percent"))
            self.assertRegex(screen, rf"{process['pid']} {process['user']}\s+{figures}")
        self.assertRegex(screen, r"5100 vera\s+60%\s+25%\s+40%\s+15%")
        # GPU 0's SM sparkline holds the daemon's readings from before top started (a top of
        # its own has one round when it prints, two with --once).
        self.assertRegex(screen, r"\n +0 in use .*90% +[▁▂▃▄▅▆▇█]{4,}", screen)
        self.assertIn("driver 570.124.06 CUDA 12.8", screen)

    def test_errors_are_said_clearly(self):
        daemon = ConnectedDaemon(self)
        no_token = self.top_once("--connect", daemon.url, "--once")
        self.assertNotEqual(no_token.returncode, 0)
        self.assertIn("401", no_token.stderr)
        self.assertIn("--token-file", no_token.stderr)
        daemon.stop()
        gone = self.top_once("--connect", daemon.url, "--token-file", daemon.token, "--once")
        self.assertNotEqual(gone.returncode, 0)
        self.assertIn(f"gpumeter top: the daemon at {daemon.url}: ", gone.stderr)
        bad = self.top_once("--connect", "ftp://host", "--once")
        self.assertEqual(bad.returncode, 2, bad.stderr)
        self.assertIn("--connect ftp://host", bad.stderr)
        socket_path = self.top_once("--connect", daemon.state / "task.sock", "--once")
        self.assertEqual(socket_path.returncode, 2, socket_path.stderr)
        self.assertIn("the task socket serves tasks only", socket_path.stderr)
        alone = self.top_once("--token-file", daemon.token, "--once")
        self.assertEqual(alone.returncode, 2)
        self.assertIn("need --connect", alone.stderr)
        mixed = self.top_once("--connect", daemon.url, "--socket", "x.sock", "--once")
        self.assertEqual(mixed.returncode, 2)
        self.assertIn("with --connect", mixed.stderr)

    def test_https_with_a_private_authority(self):
        daemon = ConnectedDaemon(self, tls=True)
        self.assertTrue(daemon.url.startswith("https://"), daemon.url)
        trusted = self.top_once("--connect", daemon.url, "--token-file", daemon.token,
                                "--ca-file", daemon.cert, "--once")
        self.assertEqual(trusted.returncode, 0, trusted.stderr)
        self.assertRegex(trusted.stdout, r"5100 vera\s+60%\s+25%\s+40%\s+15%")
        # Without the authority the certificate is not trusted, and nothing is shown.
        untrusted = self.top_once("--connect", daemon.url, "--token-file", daemon.token, "--once")
        self.assertNotEqual(untrusted.returncode, 0)
        self.assertIn(f"gpumeter top: the daemon at {daemon.url}: ", untrusted.stderr)
        self.assertEqual(untrusted.stdout, "")

    def test_connect_alone_is_this_machines_daemon(self):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", 9416)) == 0:
                self.skipTest("something listens on 127.0.0.1:9416 here")
        alone = self.top_once("--connect", "--once")
        self.assertNotEqual(alone.returncode, 0)
        self.assertIn("gpumeter top: the daemon at http://127.0.0.1:9416: ", alone.stderr)

    @unittest.skipUnless(TMUX, "tmux is not installed (scripts/install-deps.sh)")
    def test_live_screen_panes_and_a_daemon_that_goes_away(self):
        daemon = ConnectedDaemon(self)
        top = Top(None, width=120, height=30, fake_time=False, interval=1,
                  args=["--connect", daemon.url, "--token-file", daemon.token],
                  GPUMETER_NVML_LIBRARY="/nonexistent/libnvidia-ml.so.1")
        self.addCleanup(top.close)
        screen = top.wait_for(r"ffmpeg")
        self.assertRegex(screen, r"5100 vera\s+60%\s+25%\s+40%\s+15%")
        top.keys("Tab")
        tasks = top.wait_for(r"decode-cam3")
        # A task still open is shown, with its time so far (its flags lie past 120 columns).
        self.assertRegex(tasks, r"track-cam5 +\d+ +root +[-\d]+ [:\d]+ +\d+\.\d+s")
        top.keys("Tab")
        self.assertRegex(top.wait_for(r"walt +\d"), r"vera +\d")
        top.keys("Tab")
        top.wait_for(r"ffmpeg")
        daemon.stop()
        # The last good frame stays, with the reason in the header.
        gone = top.wait_for(rf"the daemon at {daemon.url}: ")
        self.assertIn("ffmpeg", gone)
        top.keys("q")
        deadline = time.monotonic() + TIMEOUT_S
        while top.dead() != "1":
            self.assertLess(time.monotonic(), deadline, "q did not end top")
            time.sleep(0.1)


if __name__ == "__main__":
    unittest.main()
