# SPDX-License-Identifier: MIT
"""A bursty CUDA worker (PyTorch) that marks its tasks with gpumeter and records its own
truth: the device energy counter and its own GPU memory (from NVML) at begin and end, the
driver's power samples (every 20 ms on Hopper) integrated over each task, and the duty cycle
it ran; docs/hardware.md. Usage, with a daemon running on GPUMETER_SOCKET:
cuda_task_worker.py SOCKET OUT_JSON"""
import json, os, random, sys, threading, time
sys.path.insert(0, os.path.join(os.getcwd(), "clients", "python"))
import gpumeter, torch, pynvml as N
N.nvmlInit(); h = N.nvmlDeviceGetHandleByIndex(0)
def energy(): return N.nvmlDeviceGetTotalEnergyConsumption(h)
# The driver keeps about 2.4 s of power samples: a thread drains them twice a second.
power = {}  # sample time (µs) -> watts
power_lock = threading.Lock()
def drain_power():
    last = 0
    while True:
        try:
            _, samples = N.nvmlDeviceGetSamples(h, N.NVML_TOTAL_POWER_SAMPLES, last)
            with power_lock:
                for s in samples:
                    power[s.timeStamp] = s.sampleValue.uiVal / 1000
                    last = max(last, s.timeStamp)
        except N.NVMLError:
            pass
        time.sleep(0.5)
threading.Thread(target=drain_power, daemon=True).start()
def sampled_energy(t0, t1):
    """Joules over [t0, t1] (s): the samples joined by straight lines, cut at the edges."""
    with power_lock:
        points = sorted(power.items())
    total = 0.0
    for (ta, pa), (tb, pb) in zip(points, points[1:]):
        ta, tb = ta / 1e6, tb / 1e6
        lo, hi = max(ta, t0), min(tb, t1)
        if hi <= lo: continue
        at = lambda t: pa + (pb - pa) * (t - ta) / (tb - ta)
        total += (at(lo) + at(hi)) / 2 * (hi - lo)
    return total
def my_mem():
    for p in N.nvmlDeviceGetComputeRunningProcesses(h):
        if p.pid == os.getpid(): return p.usedGpuMemory
    return None
a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16); b = torch.randn_like(a)
for _ in range(20): a @ b
torch.cuda.synchronize()
def burn(until, duty):
    slot = 0.05
    while True:
        t0 = time.time()
        if t0 >= until: return
        busy_end = min(until, t0 + slot * duty)
        while time.time() < busy_end:
            for _ in range(4): a @ b
            torch.cuda.synchronize()
        rest = min(until, t0 + slot) - time.time()
        if rest > 0: time.sleep(rest)
random.seed(7)
plan = [(0.3, 1.0, 0), (1.0, 1.0, 512), (2.5, 0.5, 0), (1.0, 0.7, 1024), (0.3, 1.0, 256),
        (5.0, 1.0, 2048), (1.0, 1.0, 0), (0.3, 0.5, 0), (2.5, 1.0, 0), (1.0, 0.5, 0)]
results = []
time.sleep(3)
for length, duty, mib in plan:
    time.sleep(2.0 + random.random())
    e0, m0, t0 = energy(), my_mem(), time.time()
    with gpumeter.task("burst", length=length, duty=duty) as t:
        block = torch.empty(mib << 20, dtype=torch.uint8, device="cuda") if mib else None
        burn(time.time() + length, duty)
        m_in = my_mem()
        del block
        torch.cuda.empty_cache()
        e1, t1 = energy(), time.time()
    m1 = my_mem()
    begin_s, end_s = t.result["begin_time_us"] / 1e6, t.result["end_time_us"] / 1e6
    time.sleep(1.0)  # until the drain has the samples past the end
    results.append({"length": length, "duty": duty, "mib": mib, "wall_s": t1 - t0,
                    "energy_j_truth": (e1 - e0) / 1000,
                    "energy_j_power_samples": sampled_energy(begin_s, end_s),
                    "gpu_mem_begin": m0, "gpu_mem_inside": m_in,
                    "gpu_mem_end": m1, "result": t.result})
    print(json.dumps(results[-1]["result"])[:300] if t.result else "no result", flush=True)
json.dump(results, open(sys.argv[2], "w"), indent=1)
