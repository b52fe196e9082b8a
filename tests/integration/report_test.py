# SPDX-License-Identifier: MIT
"""`gpumeter report` for real: a history database written through the store's own writer with a
known multi-user timeline (report_timeline.py), then the real binary's tables, CSV, JSON,
quotas, idle holders, charts and plots, each checked against figures worked out by hand."""

import csv
import fcntl
import hashlib
import io
import json
import os
import pty
import select
import shutil
import struct
import subprocess
import tempfile
import termios
import time
import unittest
import xml.etree.ElementTree as ElementTree
from datetime import datetime, timezone
from pathlib import Path

import gpumeter_testlib as lib
import report_timeline as timeline

GIB = 1 << 30
SVG = "{http://www.w3.org/2000/svg}"
NOVEMBER = ("--since", "2026-11-01", "--until", "2026-12-01")
AUTUMN = ("--since", "2026-10-01", "--until", "2026-12-01")

QUOTAS = """# GPU-hours per user and period
default = 10h per month
ada = 20h per week    # the week of Oct 26 holds 28 h of P1
bob = 5h per day      # Nov 2 holds 12 h of P2
cy  = unlimited
"""


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = Path(tempfile.mkdtemp(prefix="gpumeter-report-"))
        cls.db = cls.dir / "history.db"
        timeline.write_history(cls.db, timeline.intervals())
        cls.quotas = cls.dir / "quotas.txt"
        cls.quotas.write_text(QUOTAS)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def report(self, *args, tz="UTC0", env=None, **kwargs):
        environment = lib.clean_env(TZ=tz, **(env or {}))
        environment.pop("GPUMETER_DATABASE", None)
        return lib.run("report", "--database", self.db, *args, env=environment, **kwargs)

    def report_json(self, *args, **kwargs):
        result = self.report(*args, "--format", "json", check=True, **kwargs)
        document = json.loads(result.stdout)
        lib.validate_report_schema(document)
        return document

    def assert_figures(self, row, gpu_hours, busy_hours, kwh, peak, processes):
        self.assertAlmostEqual(row["gpu_hours"], gpu_hours, places=9)
        self.assertAlmostEqual(row["sm_busy_hours"], busy_hours, places=9)
        self.assertAlmostEqual(row["sm_percent_while_held"], 100 * busy_hours / gpu_hours, places=9)
        self.assertAlmostEqual(row["energy_kwh"], kwh, places=9)
        self.assertEqual(row["peak_memory_bytes"], peak)
        self.assertEqual(row["processes"], processes)


class UsageFigures(ReportTest):
    def test_per_user_in_november(self):
        document = self.report_json(*NOVEMBER)
        rows = {row["user"]: row for row in document["rows"]}
        self.assertEqual(list(rows), ["ada", "bob", "cy", "dee"])
        # ada: P1's last 2 h at 50 % and 200 W, P6's 2 h at 25 % and 100 W.
        self.assert_figures(rows["ada"], 4, 1 + 0.5, 0.4 + 0.2, 4 * GIB, 2)
        # bob: P2's 12 h at 100 % and 300 W, P5's 20 idle minutes at 30 W.
        self.assert_figures(rows["bob"], 12 + 1 / 3, 12, 3.6 + 0.01, 8 * GIB, 2)
        # cy: P3's 6 idle hours and 1 h at 80 %, all at 50 W; P7's idle hour at 20 W.
        self.assert_figures(rows["cy"], 8, 0.8, 0.35 + 0.02, 2 * GIB, 2)
        # dee: P4's 2.5 idle hours at 40 W.
        self.assert_figures(rows["dee"], 2.5, 0, 0.1, GIB, 1)
        self.assert_figures(document["total"], 26 + 5 / 6, 14.3, 4.68, 8 * GIB, 7)
        self.assertEqual(document["group_by"], ["user"])
        self.assertEqual(document["since"], "2026-11-01T00:00:00Z")
        self.assertEqual(document["until"], "2026-12-01T00:00:00Z")
        self.assertIsNone(document["quota"])

    def test_per_user_and_month(self):
        document = self.report_json(*AUTUMN, "--by", "user,month")
        rows = {(row["user"], row["period"]): row for row in document["rows"]}
        self.assertEqual(list(rows), [("ada", "2026-10"), ("ada", "2026-11"), ("bob", "2026-11"),
                                      ("cy", "2026-11"), ("dee", "2026-11")])
        # P1's first 26 h fall in October.
        self.assert_figures(rows[("ada", "2026-10")], 26, 13, 5.2, 4 * GIB, 1)
        self.assert_figures(rows[("ada", "2026-11")], 4, 1.5, 0.6, 4 * GIB, 2)
        self.assertEqual(rows[("ada", "2026-10")]["period_start"], "2026-10-01T00:00:00Z")
        # P1 counts once in the total though it spans both months.
        self.assertEqual(document["total"]["processes"], 7)

    def test_months_are_local(self):
        # In Tokyo (UTC+9) P1 runs from Oct 31 07:00 to Nov 1 11:00: 17 h in October.
        document = self.report_json(*AUTUMN, "--by", "user,month", tz="JST-9")
        rows = {(row["user"], row["period"]): row for row in document["rows"]}
        self.assertAlmostEqual(rows[("ada", "2026-10")]["gpu_hours"], 17)
        self.assertAlmostEqual(rows[("ada", "2026-11")]["gpu_hours"], 11 + 2)
        self.assertAlmostEqual(rows[("ada", "2026-11")]["sm_busy_hours"], 5.5 + 0.5)
        self.assertEqual(rows[("ada", "2026-11")]["period_start"], "2026-10-31T15:00:00Z")
        self.assertEqual(document["since"], "2026-09-30T15:00:00Z")

    def test_per_gpu_process_and_container(self):
        document = self.report_json(*AUTUMN, "--by", "gpu,process,container")
        rows = {row["pid"]: row for row in document["rows"]}
        self.assertEqual(sorted(rows), [101, 202, 303, 404, 505, 606, 707])
        self.assertEqual(rows[101]["container"], "docker:c1")
        self.assertIsNone(rows[202]["container"])
        self.assertEqual(rows[101]["gpu_uuid"], "GPU-0")
        self.assertEqual(rows[202]["gpu_index"], 1)
        self.assertEqual(rows[303]["command"], "python train_p3.py")
        self.assert_figures(rows[101], 28, 14, 5.6, 4 * GIB, 1)
        self.assert_figures(rows[303], 7, 0.8, 0.35, 2 * GIB, 1)

    def test_one_user(self):
        document = self.report_json(*NOVEMBER, "--user", "bob", "--by", "user,day")
        self.assertEqual([(row["user"], row["period"]) for row in document["rows"]],
                         [("bob", "2026-11-02"), ("bob", "2026-11-05")])
        self.assertAlmostEqual(document["total"]["gpu_hours"], 12 + 1 / 3)

    def test_table(self):
        result = self.report(*NOVEMBER, check=True)
        lines = result.stdout.splitlines()
        self.assertEqual(lines[0], f"GPU use from 2026-11-01 00:00 to 2026-12-01 00:00 UTC "
                                   f"({self.db})")
        self.assertEqual(lines[1].split(), ["USER", "GPU-HOURS", "SM-HOURS", "SM%", "ENERGY",
                                            "PEAK", "MEM", "PROCS"])
        self.assertEqual(lines[3].split(), ["bob", "12.33", "12.00", "97.3%", "3.61kWh",
                                            "8.0GiB", "2"])
        self.assertEqual(lines[-1].split(), ["TOTAL", "26.83", "14.30", "53.3%", "4.68kWh",
                                             "8.0GiB", "7"])
        self.assertNotIn("\x1b", result.stdout)

    def test_csv_matches_the_json(self):
        document = self.report_json(*NOVEMBER, "--by", "user,gpu")
        result = self.report(*NOVEMBER, "--by", "user,gpu", "--format", "csv", check=True)
        rows = list(csv.DictReader(io.StringIO(result.stdout)))
        self.assertEqual(len(rows), len(document["rows"]))
        for row, expected in zip(rows, document["rows"]):
            self.assertEqual(row["user"], expected["user"])
            self.assertEqual(row["gpu_uuid"], expected["gpu_uuid"])
            self.assertEqual(int(row["gpu_index"]), expected["gpu_index"])
            for key in ("gpu_hours", "sm_busy_hours", "energy_kwh"):
                self.assertAlmostEqual(float(row[key]), expected[key], places=12)
            self.assertEqual(int(row["peak_memory_bytes"]), expected["peak_memory_bytes"])

    def test_nothing_recorded_is_not_an_error(self):
        window = ("--since", "2026-09-01", "--until", "2026-09-02")
        table = self.report(*window)
        self.assertEqual(table.returncode, 0, table.stderr)
        self.assertEqual(table.stdout,
                         "no usage recorded between 2026-09-01 00:00 and 2026-09-02 00:00 UTC\n")
        document = self.report_json(*window)
        self.assertEqual(document["rows"], [])
        self.assertEqual(document["total"]["gpu_hours"], 0)
        listing = self.report(*window, "--format", "csv")
        self.assertEqual(listing.returncode, 0)
        self.assertEqual(listing.stdout.count("\n"), 1)
        self.assertIn("no usage recorded", listing.stderr)

    def test_reading_changes_nothing(self):
        before = hashlib.sha256(self.db.read_bytes()).hexdigest()
        self.report(*NOVEMBER, check=True)
        self.report(*NOVEMBER, "--idle", check=True)
        self.assertEqual(hashlib.sha256(self.db.read_bytes()).hexdigest(), before)


class Quotas(ReportTest):
    def test_marks_exactly_the_offenders(self):
        document = self.report_json(*NOVEMBER, "--quota", self.quotas)
        over = [(use["user"], use["period_label"], use["used_gpu_hours"])
                for use in document["quota"]["over"]]
        # ada's week of Oct 26 counts whole: P1's 28 h, though November holds only 2 of them.
        self.assertEqual(over, [("ada", "week of 2026-10-26", 28.0), ("bob", "2026-11-02", 12.0)])
        rows = {row["user"]: row["quota"] for row in document["rows"]}
        self.assertTrue(rows["ada"]["over"])
        self.assertTrue(rows["bob"]["over"])
        self.assertAlmostEqual(rows["bob"]["percent"], 240)
        self.assertIsNone(rows["cy"])  # unlimited
        self.assertEqual(rows["dee"]["period"], "month")  # the default
        self.assertAlmostEqual(rows["dee"]["used_gpu_hours"], 2.5)
        self.assertFalse(rows["dee"]["over"])

        table = self.report(*NOVEMBER, "--quota", self.quotas, check=True).stdout
        marked = [line.split()[0] for line in table.splitlines() if line.endswith(" OVER")]
        self.assertEqual(marked, ["ada", "bob"])
        self.assertIn("bob: 12.00 of 5 GPU-hours per day, 2026-11-02 (240.0%)", table)

    def test_check_exit_status_and_output(self):
        over = self.report(*NOVEMBER, "--quota", self.quotas, "--check")
        self.assertEqual(over.returncode, 1, over.stderr)
        self.assertEqual(over.stdout.splitlines(), [
            "ada: 28.00 of 20 GPU-hours per week, week of 2026-10-26 (140.0%)",
            "bob: 12.00 of 5 GPU-hours per day, 2026-11-02 (240.0%)"])
        generous = self.dir / "generous.txt"
        generous.write_text("default = 100h per day\n")
        fine = self.report(*NOVEMBER, "--quota", generous, "--check")
        self.assertEqual((fine.returncode, fine.stdout, fine.stderr), (0, "", ""))
        # December: nobody has used anything yet.
        quiet = self.report("--since", "2026-12-01", "--until", "2026-12-02", "--quota",
                            self.quotas, "--check")
        self.assertEqual((quiet.returncode, quiet.stdout), (0, ""))

    def test_check_in_json_says_who(self):
        result = self.report(*NOVEMBER, "--quota", self.quotas, "--check", "--format", "json")
        self.assertEqual(result.returncode, 1)
        document = json.loads(result.stdout)
        lib.validate_report_schema(document)
        self.assertEqual([use["user"] for use in document["quota"]["over"]], ["ada", "bob"])

    def test_bad_quota_files_exit_2(self):
        bad = self.dir / "bad.txt"
        bad.write_text("default = 10h per month\nbob = 5 hours a day\n")
        result = self.report(*NOVEMBER, "--quota", bad, "--check")
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stdout, "")
        self.assertEqual(result.stderr,
                         f"{bad}:2: expected GPU-hours such as `500h` or `12.5h`, or "
                         f"`unlimited`, found `5`\n")
        missing = self.report(*NOVEMBER, "--quota", self.dir / "none.txt", "--check")
        self.assertEqual(missing.returncode, 2)
        self.assertIn("cannot read the quota file", missing.stderr)
        self.assertEqual(self.report(*NOVEMBER, "--check").returncode, 2)
        self.assertEqual(self.report(*NOVEMBER, "--by", "gpu", "--quota", self.quotas).returncode,
                         2)


class IdleHolders(ReportTest):
    def holders(self, *args):
        return [(h["user"], h["pid"], h["idle_seconds"], h["state"])
                for h in self.report_json(*NOVEMBER, "--idle", *args)["holders"]]

    def test_exactly_the_idle_processes(self):
        # P3's 6 idle hours (then busy), P4's 2.5 h until it exited, P7's last hour; P5's
        # 20 minutes are under the 30-minute threshold.
        self.assertEqual(self.holders(), [("cy", 303, 6 * 3600, "ended"),
                                          ("dee", 404, 9000, "exited"),
                                          ("cy", 707, 3600, "still_idle")])
        self.assertEqual(self.holders("--for", "2h"), [("cy", 303, 6 * 3600, "ended"),
                                                       ("dee", 404, 9000, "exited")])
        self.assertEqual([h[1] for h in self.holders("--for", "10m")], [303, 404, 707, 505])
        # At up to 30 % SM use, P6 (25 %) holds its GPU idle too.
        self.assertEqual([h[1] for h in self.holders("--max-sm", "30")], [303, 404, 606, 707])

    def test_table_and_csv(self):
        table = self.report(*NOVEMBER, "--idle", check=True).stdout.splitlines()
        self.assertEqual(table[1].split(), ["USER", "PID", "COMMAND", "GPU", "MEMORY", "IDLE",
                                            "SINCE", "FOR", "STATE"])
        self.assertEqual(table[2].split(), ["cy", "303", "python", "train_p3.py", "0", "2.0GiB",
                                            "2026-11-03", "00:00", "6h", "ended"])
        self.assertTrue(table[4].endswith("still idle"))
        rows = list(csv.DictReader(io.StringIO(
            self.report(*NOVEMBER, "--idle", "--format", "csv", check=True).stdout)))
        self.assertEqual([(r["pid"], r["idle_since"], r["idle_until"], r["memory_held_bytes"])
                          for r in rows],
                         [("303", "2026-11-03T00:00:00Z", "2026-11-03T06:00:00Z", str(2 * GIB)),
                          ("404", "2026-11-04T10:00:00Z", "2026-11-04T12:30:00Z", str(GIB)),
                          ("707", "2026-11-06T13:00:00Z", "2026-11-06T14:00:00Z", str(GIB))])

    def test_idle_refuses_report_options(self):
        result = self.report(*NOVEMBER, "--idle", "--chart")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--idle", result.stderr)


def bar_eighths(bar):
    """Eighths of a cell drawn by a bar of block characters."""
    partial = "▏▎▍▌▋▊▉"
    return bar.count("█") * 8 + sum(partial.index(c) + 1 for c in bar if c in partial)


class Charts(ReportTest):
    def chart_lines(self, text, title):
        lines = text.splitlines()
        start = lines.index(title) + 1
        end = next((i for i in range(start, len(lines)) if not lines[i]), len(lines))
        return lines[start:end]

    def test_bars_fit_the_width_and_follow_the_values(self):
        result = self.report(*NOVEMBER, "--chart", env={"COLUMNS": "60"}, check=True)
        for line in result.stdout.splitlines()[1:]:
            self.assertLessEqual(len(line), 60, line)
        bars = self.chart_lines(result.stdout, "GPU-hours held")
        eighths = {line.split()[0]: bar_eighths(line) for line in bars}
        expected = {"ada": 4, "bob": 12 + 1 / 3, "cy": 8, "dee": 2.5}
        full = eighths["bob"]
        self.assertEqual(len(bars[1].rstrip()), 60)  # bob's line is the longest possible
        for user, hours in expected.items():
            self.assertEqual(eighths[user], round(hours / expected["bob"] * full), user)
        self.assertNotIn("\x1b", result.stdout)

    def test_colours_only_on_a_terminal(self):
        text = self.on_terminal(["--quota", str(self.quotas)], columns=70)
        self.assertIn("\x1b[31m", text)  # over quota in red
        lines = [line for line in text.replace("\r", "").split("\n")[1:] if "█" in line]
        for line in lines:
            plain = line.replace("\x1b[31m", "").replace("\x1b[34m", "").replace("\x1b[0m", "")
            plain = plain.replace("\x1b[1m", "")
            self.assertLessEqual(len(plain), 70, plain)  # the terminal's width, from TIOCGWINSZ
        self.assertNotIn("\x1b", self.on_terminal([], columns=70, no_color="1"))

    def on_terminal(self, extra, columns, no_color=None):
        """Runs `report --chart` with stdout on a pseudo-terminal `columns` wide."""
        controller, terminal = pty.openpty()
        fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        env = lib.clean_env(TZ="UTC0")
        env.pop("COLUMNS", None)
        if no_color:
            env["NO_COLOR"] = no_color
        process = subprocess.Popen([lib.GPUMETER, "report", "--database", str(self.db), *NOVEMBER,
                                    "--chart", *extra], stdout=terminal, stderr=subprocess.PIPE,
                                   env=env)
        os.close(terminal)
        output = b""
        while True:
            ready, _, _ = select.select([controller], [], [], 10)
            if not ready:
                break
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the other side closed
                break
            if not chunk:
                break
            output += chunk
        _, errors = process.communicate(timeout=30)
        os.close(controller)
        self.assertEqual(process.returncode, 0, errors)
        return output.decode()


class Plot(ReportTest):
    def plot(self, *args, database=None):
        path = self.dir / "usage.svg"
        environment = lib.clean_env(TZ="UTC0")
        result = lib.run("report", "--database", database or self.db, *args, "--plot", path,
                         env=environment, check=True)
        self.assertNotIn("<svg", result.stdout)
        return path, ElementTree.parse(path).getroot()

    def test_a_bar_per_user_per_day_with_proportional_heights(self):
        path, svg = self.plot("--since", "2026-10-25", "--until", "2026-11-10", "--by",
                              "user,day")
        self.assertEqual(svg.tag, f"{SVG}svg")
        bars = [rect for rect in svg.iter(f"{SVG}rect") if rect.get("class") == "bar"]
        found = {(bar.get("data-series"), bar.get("data-category")): bar for bar in bars}
        expected = {("ada", "2026-10-30"): 2, ("ada", "2026-10-31"): 24, ("ada", "2026-11-01"): 2,
                    ("ada", "2026-11-06"): 2, ("bob", "2026-11-02"): 12,
                    ("bob", "2026-11-05"): 1 / 3, ("cy", "2026-11-03"): 7,
                    ("cy", "2026-11-06"): 1, ("dee", "2026-11-04"): 2.5}
        self.assertEqual(set(found), set(expected))
        scale = float(found[("ada", "2026-10-31")].get("height")) / 24
        for key, hours in expected.items():
            self.assertAlmostEqual(float(found[key].get("data-value")), hours, places=9)
            self.assertAlmostEqual(float(found[key].get("height")), hours * scale, delta=0.011)
        # Nov 6: cy stacked on ada (ada used more in the window, so she is at the bottom).
        ada, cy = found[("ada", "2026-11-06")], found[("cy", "2026-11-06")]
        self.assertAlmostEqual(float(cy.get("y")) + float(cy.get("height")), float(ada.get("y")),
                               delta=0.011)
        texts = ["".join(text.itertext()) for text in svg.iter(f"{SVG}text")]
        self.assertIn("GPU-hours by user, per day", texts)
        self.assertIn("GPU-hours", texts)
        for user in ("ada", "bob", "cy", "dee"):
            self.assertIn(user, texts)
        self.assertEqual(sum(1 for t in texts if t.startswith("2026-1")), 16)  # every day
        self.render(path)

    def test_without_a_period_in_by_it_picks_one(self):
        _, svg = self.plot(*AUTUMN)
        categories = {bar.get("data-category") for bar in svg.iter(f"{SVG}rect")
                      if bar.get("class") == "bar"}
        self.assertEqual(categories, {"2026-10-30", "2026-10-31", "2026-11-01", "2026-11-02",
                                      "2026-11-03", "2026-11-04", "2026-11-05", "2026-11-06"})

    def test_names_are_escaped(self):
        odd = self.dir / "odd.db"
        line = next(timeline.intervals())
        line.update(user='o"brien <&> zoë', command="x")
        timeline.write_history(odd, [line])
        path, svg = self.plot("--since", "2026-10-30", "--until", "2026-10-31", database=odd)
        series = {rect.get("data-series") for rect in svg.iter(f"{SVG}rect")
                  if rect.get("class") == "bar"}
        self.assertEqual(series, {'o"brien <&> zoë'})
        self.render(path)

    def render(self, path):
        converter = shutil.which("rsvg-convert")
        if converter is None:
            return  # scripts/install-deps.sh installs it; parsing above is the main check
        png = path.with_suffix(".png")
        subprocess.run([converter, "-o", png, path], check=True, timeout=60)
        self.assertEqual(png.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")


def runnable_by_others(program):
    """Whether a user with no rights of their own may run `program`: it and every directory on
    the way are executable by others."""
    path = program.resolve()
    return all(part.stat().st_mode & 0o001 for part in [path, *path.parents])


class Locations(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="gpumeter-report-loc-"))

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_a_missing_database_says_where_it_looked(self):
        missing = self.dir / "none" / "history.db"
        result = lib.run("report", "--database", missing, env=lib.clean_env())
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stdout, "")
        self.assertIn(f"no gpumeter history found (looked for {missing})", result.stderr)
        self.assertIn("`gpumeter daemon`", result.stderr)
        self.assertIn("`gpumeter record --once`", result.stderr)
        self.assertFalse(missing.parent.exists())  # nothing was created

    @unittest.skipIf(Path("/var/lib/gpumeter/gpumeter.db").exists(),
                     "this machine has a system history")
    def test_default_locations(self):
        env = lib.clean_env(HOME=self.dir)
        env.pop("XDG_STATE_HOME", None)
        env.pop("GPUMETER_DATABASE", None)
        result = lib.run("report", env=env)
        self.assertEqual(result.returncode, 2)
        if os.geteuid() == 0:
            self.assertIn("(looked for /var/lib/gpumeter/gpumeter.db)", result.stderr)
        else:
            self.assertIn(f"(looked for {self.dir}/.local/state/gpumeter/gpumeter.db and "
                          f"/var/lib/gpumeter/gpumeter.db)", result.stderr)
        # A user's own history is read when it exists.
        if os.geteuid() != 0:
            own = self.dir / ".local" / "state" / "gpumeter" / "gpumeter.db"
            own.parent.mkdir(parents=True)
            timeline.write_history(own, timeline.intervals())
            result = lib.run("report", *NOVEMBER, env=env)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertIn(str(own), result.stdout)

    def test_gpumeter_database_names_the_file(self):
        db = self.dir / "named.db"
        timeline.write_history(db, timeline.intervals())
        env = lib.clean_env(GPUMETER_DATABASE=db, TZ="UTC0")
        result = lib.run("report", *NOVEMBER, env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(f"({db})", result.stdout.splitlines()[0])

    @unittest.skipUnless(os.geteuid() == 0, "needs root to run as another user")
    def test_a_database_others_may_not_read(self):
        if not runnable_by_others(Path(lib.GPUMETER)):
            self.skipTest(f"other users may not run {lib.GPUMETER}")
        db = self.dir / "private.db"
        timeline.write_history(db, timeline.intervals())
        os.chmod(self.dir, 0o755)
        os.chmod(db, 0o600)
        result = subprocess.run([lib.GPUMETER, "report", "--database", str(db)],
                                capture_output=True, text=True, env=lib.clean_env(),
                                user=65534, group=65534, timeout=60)
        self.assertEqual(result.returncode, 2)
        self.assertIn(f"cannot read {db}: Permission denied", result.stderr)

    def test_the_default_window_is_this_month(self):
        now = datetime.now(timezone.utc)
        month = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        begin = max(int(month.timestamp()), int(now.timestamp()) - 20 * 60) // 60 * 60
        end = int(now.timestamp()) // 60 * 60
        if end <= begin:
            self.skipTest("the month began less than a minute ago")
        line = dict(next(timeline.intervals()), begin_us=begin * 1_000_000,
                    end_us=end * 1_000_000, held_seconds=float(end - begin),
                    sm_busy_seconds=0.0, energy_joules=0.0)
        db = self.dir / "now.db"
        timeline.write_history(db, [line])
        result = lib.run("report", "--database", db, "--format", "json",
                         env=lib.clean_env(TZ="UTC0"), check=True)
        document = json.loads(result.stdout)
        self.assertEqual(document["since"], month.strftime("%Y-%m-%dT%H:%M:%SZ"))
        self.assertLessEqual(abs(document["until_time_us"] / 1e6 - time.time()), 60)
        self.assertAlmostEqual(document["rows"][0]["gpu_hours"], (end - begin) / 3600)


if __name__ == "__main__":
    unittest.main()
