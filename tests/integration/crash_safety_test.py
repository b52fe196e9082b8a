# SPDX-License-Identifier: MIT
"""kill -9 the daemon at random moments, a hundred times, and check its database each time.

The daemon runs on the simulated 8-GPU machine (examples/scenarios/dgx-8gpu.json), sampling every
100 ms and writing every second, with its own --state-dir and --socket; two such sequences run
side by side on two databases, half the kills each. Each run is killed with SIGKILL after a
random time: early (opening the database, the downsampling and pruning it runs at start) or
later (around the writes of its first record intervals). After each kill, before the next
start:

- PRAGMA integrity_check says ok;
- every device sample, per-minute aggregate, per-minute process row and ledger row that an
  earlier run had committed is still there;
- no ledger row's figures (GPU-seconds, SM busy-seconds, energy, last seen) went backwards,
  nor their totals.

A second part kills daemons opening a new database (the schema's migrations), then checks
that the file is whole and that a daemon opens it and completes the schema.

GPUMETER_CRASH_CYCLES and GPUMETER_CRASH_SEED change the number of kills and the random
seed (printed, so that a failing run can be replayed).
"""

import concurrent.futures
import os
import random
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))
from gpumeter_testlib import GPUMETER, SOURCE_DIR, clean_env  # noqa: E402

SCENARIO = SOURCE_DIR / "examples" / "scenarios" / "dgx-8gpu.json"
CYCLES = int(os.environ.get("GPUMETER_CRASH_CYCLES", "100"))
MIGRATION_CYCLES = 12
SEED = int(os.environ.get("GPUMETER_CRASH_SEED", str(int(time.time()))))
# One scenario epoch for every run, so that a process has the same start time in each run and
# its ledger row is continued, not started again.
EPOCH_US = int(time.time()) * 1_000_000


def start_daemon(directory):
    with open(directory / "daemon.log", "ab") as log:
        return subprocess.Popen(
            [GPUMETER, "--simulate", SCENARIO, "daemon", "--state-dir", directory / "state",
             "--socket", directory / "task.sock", "--interval", "100ms", "--record-interval",
             "1s", "--no-http"],
            stdout=log, stderr=subprocess.STDOUT, env=clean_env(GPUMETER_SIM_EPOCH_US=EPOCH_US))


def starts_logged(directory):
    log = directory / "daemon.log"
    return log.read_text().count("serving tasks on") if log.exists() else 0


def wait_for_socket(daemon, directory, starts_before, timeout=30):
    """Waits until the daemon serves its task socket, which it creates once the database is
    open and migrated (its log line is the start's after `starts_before` earlier ones)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and daemon.poll() is None:
        if starts_logged(directory) > starts_before:
            return
        time.sleep(0.02)
    raise AssertionError(f"the daemon did not start:\n{(directory / 'daemon.log').read_text()}")


def torn_wal(database):
    """Whether the -wal file ends in frames of a transaction with no commit frame: the kill
    came while SQLite was appending a transaction to the log."""
    wal = Path(f"{database}-wal")
    if not wal.exists() or wal.stat().st_size < 32:
        return False
    data = wal.read_bytes()
    page_size = struct.unpack(">I", data[8:12])[0]
    salts = data[16:24]
    last_commit = None
    for offset in range(32, len(data) - 24 - page_size + 1, 24 + page_size):
        if data[offset + 8:offset + 16] != salts:
            break
        last_commit = struct.unpack(">I", data[offset + 4:offset + 8])[0]
    return last_commit == 0


def table_exists(db, name):
    return db.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?",
                      (name,)).fetchone() is not None


def read_state(database):
    """What the database holds: integrity, schema version, the keys of each table checked, and
    the ledger's figures per row."""
    db = sqlite3.connect(database, timeout=10)
    try:
        state = {"integrity": db.execute("PRAGMA integrity_check").fetchall(),
                 "version": db.execute("PRAGMA user_version").fetchone()[0]}
        keys = {"device_samples": "time_us, device_id", "device_minutes": "bucket_us, device_id",
                "process_minutes": "bucket_us, process_id"}
        for table, key in keys.items():
            state[table] = (set(db.execute(f"SELECT {key} FROM {table}"))
                            if table_exists(db, table) else set())
        state["ledger"] = {}
        if table_exists(db, "ledger"):
            for row in db.execute("SELECT host_id, pid, start_time_us, device_id, gpu_seconds, "
                                  "sm_busy_seconds, energy_joules, last_seen_us FROM ledger"):
                state["ledger"][row[:4]] = row[4:]
        return state
    finally:
        db.close()


class KillNine(unittest.TestCase):
    def setUp(self):
        self.directory = Path(tempfile.mkdtemp(prefix="gpumeter-crash-"))
        self.random = random.Random(SEED - 1)
        print(f"seed {SEED} (GPUMETER_CRASH_SEED replays it)", file=sys.stderr)

    def kill_after(self, directory, seconds, ready=False):
        """Starts a daemon and kills it `seconds` after its start, or after it is ready."""
        starts_before = starts_logged(directory)
        daemon = start_daemon(directory)
        if ready:
            wait_for_socket(daemon, directory, starts_before)
        time.sleep(seconds)
        if daemon.poll() is not None:
            self.fail(f"the daemon exited with {daemon.returncode}:\n"
                      f"{(directory / 'daemon.log').read_text()}")
        daemon.kill()
        daemon.wait()

    def assert_kept(self, before, after, cycle):
        """What `before` held is in `after`, no ledger figure went back, and the file is whole."""
        self.assertEqual(after["integrity"], [("ok",)], f"kill {cycle}")
        for table in ("device_samples", "device_minutes", "process_minutes"):
            lost = before[table] - after[table]
            self.assertFalse(lost, f"kill {cycle}: {len(lost)} committed {table} rows are gone")
        for key, figures in before["ledger"].items():
            self.assertIn(key, after["ledger"], f"kill {cycle}: ledger row {key} is gone")
            for old, new in zip(figures, after["ledger"][key]):
                self.assertGreaterEqual(new + 1e-9, old, f"kill {cycle}: ledger row {key} "
                                        f"went back from {figures} to {after['ledger'][key]}")
        for column in range(3):
            total = lambda state: sum(f[column] for f in state["ledger"].values())  # noqa: E731
            self.assertGreaterEqual(total(after) + 1e-6, total(before), f"kill {cycle}")

    def kill_sequence(self, directory, cycles, seed):
        """`cycles` kills of daemons on one database; returns what it holds at the end and how
        many kills were early and how many tore a WAL append."""
        directory.mkdir()
        rng = random.Random(seed)
        database = directory / "state" / "gpumeter.db"
        before = read_state(":memory:")
        early = torn = 0
        for cycle in range(cycles):
            # A quarter of the kills while the daemon starts: opening the database, the start's
            # downsampling and pruning; the rest once it is ready, around its first record
            # intervals' writes (the first comes within about a second).
            if rng.random() < 1 / 4:
                early += 1
                self.kill_after(directory, rng.uniform(0.0, 0.4))
            else:
                self.kill_after(directory, rng.uniform(0.3, 2.0), ready=True)
            if not database.exists():
                continue
            torn += torn_wal(database)
            after = read_state(database)
            self.assert_kept(before, after, f"{directory.name} {cycle}")
            before = after
        if database.exists() and not before["device_minutes"]:
            # On a loaded machine the short-lived daemons may all die before one starts after a
            # minute that holds their samples is complete (a start's maintenance rolls it up):
            # daemons run until one does, and are killed too.
            after = self.kill_after_roll_up(directory, database)
            self.assert_kept(before, after, f"{directory.name} after its roll-up")
            before = after
        return before, early, torn

    def kill_after_roll_up(self, directory, database):
        """Runs daemons until the database holds a device minute: one until a minute boundary
        passes, then one more, whose start's maintenance rolls that minute up, for a few
        seconds; kills each and returns what the database holds."""
        for seconds in (60 - time.time() % 60 + 1, 5.0):
            self.kill_after(directory, seconds, ready=True)
            state = read_state(database)
            if state["device_minutes"]:
                break
        return state

    def test_every_committed_row_survives_kill_9(self):
        # Two databases, each with its own daemon killed again and again, side by side: twice
        # the kills in the same time.
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            runs = [pool.submit(self.kill_sequence, self.directory / f"run-{n}", CYCLES // 2,
                                SEED + n) for n in range(2)]
            results = [run.result() for run in runs]
        for state, early, torn in results:
            self.assertGreater(len(state["device_samples"]), 0)
            self.assertGreater(len(state["device_minutes"]), 0, "no roll-up was ever committed")
            print(f"{CYCLES // 2} kills ({early} while starting, {torn} in the middle of a "
                  f"WAL append): {len(state['device_samples'])} device samples, "
                  f"{len(state['device_minutes'])} device minutes, {len(state['ledger'])} ledger "
                  f"rows kept", file=sys.stderr)

    def test_a_kill_during_migrations_leaves_a_database_that_opens(self):
        latest = None
        for cycle in range(MIGRATION_CYCLES):
            directory = self.directory / f"new-{cycle}"
            directory.mkdir()
            self.kill_after(directory, self.random.uniform(0.0, 1.0))
            database = directory / "state" / "gpumeter.db"
            if database.exists():
                self.assertEqual(read_state(database)["integrity"], [("ok",)], f"kill {cycle}")
            self.kill_after(directory, 0.0, ready=True)
            version = read_state(database)["version"]
            latest = latest or version
            self.assertEqual(version, latest, f"kill {cycle}: the schema was not completed")
        self.assertGreater(latest, 0)


if __name__ == "__main__":
    unittest.main()
