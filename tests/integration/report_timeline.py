# SPDX-License-Identifier: MIT
"""A known multi-user timeline for the report tests, written through the store's own writer.

Every figure the tests expect is worked out by hand from this table (UTC; one interval per
process per minute, as the daemon records them; energy is the process's share in watts):

  P1 ada pid 101 GPU-0 docker:c1  Oct 30 22:00 - Nov 1 02:00  28 h  SM 50 %   4 GiB  200 W
  P2 bob pid 202 GPU-1            Nov 2 08:00 - 20:00         12 h  SM 100 %  8 GiB  300 W
  P3 cy  pid 303 GPU-0            Nov 3 00:00 - 06:00          6 h  SM 0 %    2 GiB   50 W
                                  Nov 3 06:00 - 07:00          1 h  SM 80 %   2 GiB   50 W
  P4 dee pid 404 GPU-1            Nov 4 10:00 - 12:30        2.5 h  SM 0 %    1 GiB   40 W  exits
  P5 bob pid 505 GPU-0            Nov 5 00:00 - 00:20         20 m  SM 0 %    1 GiB   30 W
  P6 ada pid 606 GPU-1            Nov 6 12:00 - 14:00          2 h  SM 25 %   2 GiB  100 W
  P7 cy  pid 707 GPU-0            Nov 6 13:00 - 14:00          1 h  SM 0 %    1 GiB   20 W
"""

import json
import os
import subprocess
from datetime import datetime, timezone

GIB = 1 << 30
MINUTE_US = 60_000_000


def utc_us(month, day, hour=0, minute=0):
    moment = datetime(2026, month, day, hour, minute, tzinfo=timezone.utc)
    return int(moment.timestamp()) * 1_000_000


# (name, pid, user, gpu index, container, spans); a span is (begin, end, SM %, memory, watts).
PROCESSES = [
    ("P1", 101, "ada", 0, "docker:c1", [(utc_us(10, 30, 22), utc_us(11, 1, 2), 50, 4 * GIB, 200)]),
    ("P2", 202, "bob", 1, None, [(utc_us(11, 2, 8), utc_us(11, 2, 20), 100, 8 * GIB, 300)]),
    ("P3", 303, "cy", 0, None, [(utc_us(11, 3, 0), utc_us(11, 3, 6), 0, 2 * GIB, 50),
                                (utc_us(11, 3, 6), utc_us(11, 3, 7), 80, 2 * GIB, 50)]),
    ("P4", 404, "dee", 1, None, [(utc_us(11, 4, 10), utc_us(11, 4, 12, 30), 0, GIB, 40)]),
    ("P5", 505, "bob", 0, None, [(utc_us(11, 5, 0), utc_us(11, 5, 0, 20), 0, GIB, 30)]),
    ("P6", 606, "ada", 1, None, [(utc_us(11, 6, 12), utc_us(11, 6, 14), 25, 2 * GIB, 100)]),
    ("P7", 707, "cy", 0, None, [(utc_us(11, 6, 13), utc_us(11, 6, 14), 0, GIB, 20)]),
]
FINAL = {"P4"}


def intervals():
    """The JSON lines history_writer reads: one interval per process per minute."""
    for name, pid, user, gpu, container, spans in PROCESSES:
        end_of_life = spans[-1][1]
        for begin, end, sm, memory, watts in spans:
            for start in range(begin, end, MINUTE_US):
                yield {"pid": pid, "start_time_us": spans[0][0] - 5_000_000,
                       "gpu_uuid": f"GPU-{gpu}", "gpu_index": gpu, "uid": 1000 + pid,
                       "user": user, "command": f"python train_{name.lower()}.py",
                       "container": container, "begin_us": start,
                       "end_us": start + MINUTE_US, "held_seconds": 60.0,
                       "sm_busy_seconds": 60.0 * sm / 100, "peak_memory_bytes": memory,
                       "energy_joules": 60.0 * watts,
                       "final": name in FINAL and start + MINUTE_US == end_of_life}


def write_history(database, lines, host="node1", prune_at=None):
    """Writes `lines` (dicts) into `database` with history_writer."""
    command = [os.environ["GPUMETER_HISTORY_WRITER"], str(database), "--host", host]
    if prune_at is not None:
        command += ["--prune-at", str(prune_at)]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    subprocess.run(command, input=text, text=True, check=True, timeout=120)
