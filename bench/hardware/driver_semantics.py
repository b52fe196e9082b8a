# SPDX-License-Identifier: MIT
"""What the real driver's per-process samples mean: a child runs a known duty pattern, the
parent polls nvmlDeviceGetProcessUtilization the way a sampler does; also the energy
counter's granularity and the cost of the calls an edge reading would make."""
import json, os, sys, time, subprocess
import pynvml as N
N.nvmlInit(); h = N.nvmlDeviceGetHandleByIndex(0)
out = {}
# costs
def cost(f, n=200):
    t = time.perf_counter()
    for _ in range(n): f()
    return (time.perf_counter() - t) / n * 1e6
out["cost_energy_us"] = cost(lambda: N.nvmlDeviceGetTotalEnergyConsumption(h))
out["cost_power_us"] = cost(lambda: N.nvmlDeviceGetPowerUsage(h))
out["cost_procs_us"] = cost(lambda: N.nvmlDeviceGetComputeRunningProcesses(h))
out["cost_meminfo_us"] = cost(lambda: N.nvmlDeviceGetMemoryInfo(h))
# energy counter granularity (idle)
ch = []; last = None; t_end = time.time() + 0.6
while time.time() < t_end:
    e = N.nvmlDeviceGetTotalEnergyConsumption(h)
    if e != last: ch.append((time.time(), e)); last = e
out["energy_changes_idle"] = ch
child_code = r'''
import time, torch, sys
t0 = float(sys.argv[1])
a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16); b = torch.randn_like(a)
for _ in range(20): a @ b
torch.cuda.synchronize()
def busy(until):
    while time.time() < until:
        for _ in range(4): a @ b
        torch.cuda.synchronize()
def at(t):
    d = t - time.time()
    if d > 0: time.sleep(d)
for k in range(10):            # phase A: 300 ms busy at each second
    at(t0 + k); busy(t0 + k + 0.3)
at(t0 + 10); busy(t0 + 14)     # phase B: 4 s busy
for k in range(14, 20):        # phase C: 500 ms busy at each second
    at(t0 + k); busy(t0 + k + 0.5)
at(t0 + 21)
'''
t0 = time.time() + 12  # torch import and warm-up
child = subprocess.Popen([sys.executable, "-c", child_code, str(t0)])
def at(t):
    d = t - time.time()
    if d > 0: time.sleep(d)
def poll(last):
    try:
        s = N.nvmlDeviceGetProcessUtilization(h, last)
    except N.NVMLError as e:
        return [], str(e)
    return [(x.pid, x.timeStamp, x.smUtil, x.memUtil) for x in s], None
polls = []; last = 0
at(t0 - 1.5)
_, _ = poll(0)
last = int((t0 - 1.0) * 1e6)
# slow polls at k+0.5 for phase A and B
for k in range(0, 14):
    at(t0 + k + 0.5)
    s, err = poll(last)
    pt = time.time()
    polls.append({"rate": "1s", "t": pt - t0, "last": (last / 1e6 - t0), "err": err,
                  "s": [(p, ts / 1e6 - t0, sm, mu) for p, ts, sm, mu in s if p == child.pid]})
    mine = [x[1] for x in s if x[0] == child.pid]
    if s: last = max(x[1] for x in s)
# phase C: fast polls every 100 ms, and the power/energy step
pw = []
while time.time() < t0 + 20.5:
    s, err = poll(last)
    pt = time.time()
    polls.append({"rate": "100ms", "t": pt - t0, "last": (last / 1e6 - t0), "err": err,
                  "s": [(p, ts / 1e6 - t0, sm, mu) for p, ts, sm, mu in s if p == child.pid]})
    if s: last = max(x[1] for x in s)
    time.sleep(0.1)
out["polls"] = polls
out["all_zero_lastseen"] = [(p, ts / 1e6 - t0, sm) for p, ts, sm, mu in poll(0)[0]]
child.wait()
json.dump(out, sys.stdout, indent=0)
