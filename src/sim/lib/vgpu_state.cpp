// SPDX-License-Identifier: MIT
#include "sim/lib/vgpu_state.h"

#include <algorithm>
#include <cmath>

namespace gpumeter::sim::lib {
namespace {

unsigned percent(double value) {
  return static_cast<unsigned>(std::clamp(std::lround(value), 0L, 100L));
}

// Mean of `profile` over [a, b] counting only [start, end) (the rest is 0).
double mean_while_alive(const Profile& profile, double start, double end, double a, double b) {
  if (b <= a) return 0;
  const double from = std::max(a, start);
  const double to = std::min(b, end);
  if (to <= from) return 0;
  return profile.integral(from, to) / (b - a);
}

}  // namespace

VgpuPercent rounded(const VgpuUse& use) {
  return VgpuPercent{percent(use.sm),  percent(use.mem), percent(use.enc),
                     percent(use.dec), percent(use.jpg), percent(use.ofa)};
}

std::vector<const VgpuInstanceSpec*> visible_instances(Library& library, std::size_t device,
                                                       double t) {
  const bool sized = library.vgpu_sized().contains(device);
  std::vector<const VgpuInstanceSpec*> out;
  for (const VgpuInstanceSpec& v : library.scenario().vgpu.instances) {
    if (v.device == device && v.alive(t) && (!v.appears_after_sizing || sized)) out.push_back(&v);
  }
  return out;
}

VgpuUse process_mean(const VgpuProcessSpec& p, double a, double b) {
  auto mean = [&](const Profile& profile) {
    return mean_while_alive(profile, p.start_s, p.end_s, a, b);
  };
  return VgpuUse{mean(p.sm), mean(p.mem), mean(p.enc), mean(p.dec), mean(p.jpg), mean(p.ofa)};
}

VgpuUse instance_mean(const Scenario& scenario, std::uint32_t instance, double a, double b) {
  VgpuUse sum;
  for (const VgpuProcessSpec& p : scenario.vgpu.processes) {
    if (p.instance != instance) continue;
    const VgpuUse use = process_mean(p, a, b);
    sum.sm += use.sm;
    sum.mem += use.mem;
    sum.enc += use.enc;
    sum.dec += use.dec;
    sum.jpg += use.jpg;
    sum.ofa += use.ofa;
  }
  auto cap = [](double& v) { v = std::min(v, 100.0); };
  cap(sum.sm);
  cap(sum.mem);
  cap(sum.enc);
  cap(sum.dec);
  cap(sum.jpg);
  cap(sum.ofa);
  return sum;
}

std::vector<SimUs> sample_periods(const DeviceSpec& device, SimUs now, SimUs after) {
  // The driver had been sampling before the scenario's epoch (a one-shot reader starts the
  // clock at its first nvmlInit), so the buffer may reach back past it.
  const SimUs period = device.sample_period_us;
  const SimUs newest = now >= 0 ? now / period : -((-now + period - 1) / period);
  const auto length = std::max<SimUs>(
      1, static_cast<SimUs>(std::ceil(device.sample_buffer_s * 1e6 / static_cast<double>(period))));
  std::vector<SimUs> out;
  for (SimUs k = newest - length + 1; k <= newest; ++k) {
    if (k * period > after) out.push_back(k);
  }
  return out;
}

void note_sizing(Library& library, std::size_t device) {
  library.vgpu_sized().insert(device);
}

}  // namespace gpumeter::sim::lib
