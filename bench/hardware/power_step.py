# SPDX-License-Identifier: MIT
"""Power samples and the energy counter across a step from idle to full load and back."""
import json, sys, time, threading
import pynvml as N, torch
N.nvmlInit(); h = N.nvmlDeviceGetHandleByIndex(0)
a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16); b = torch.randn_like(a)
for _ in range(20): a @ b
torch.cuda.synchronize(); time.sleep(3)
energy = []; stop = False
def reader():
    while not stop:
        energy.append((time.time(), N.nvmlDeviceGetTotalEnergyConsumption(h), N.nvmlDeviceGetPowerUsage(h)))
        time.sleep(0.005)
th = threading.Thread(target=reader); th.start()
t0 = time.time() + 1
time.sleep(1)
while time.time() < t0 + 1.0:
    for _ in range(4): a @ b
    torch.cuda.synchronize()
time.sleep(1.5)
stop = True; th.join()
vt, s = N.nvmlDeviceGetSamples(h, 0, int((t0 - 1) * 1e6))
json.dump({"t0": t0, "energy": [(t - t0, e, p) for t, e, p in energy],
           "power_samples": [(x.timeStamp / 1e6 - t0, x.sampleValue.uiVal) for x in s]}, sys.stdout)
