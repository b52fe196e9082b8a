// SPDX-License-Identifier: MIT
#include "sim/profile.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpumeter::sim {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// t modulo period, in [0, period). A tiny negative remainder plus the period can round to
// the period itself; that is phase 0, or a walk would creep forward one ulp at a time.
double phase(double t, double period) {
  const double r = std::fmod(t, period);
  if (r >= 0) return r;
  const double wrapped = r + period;
  return wrapped < period ? wrapped : 0;
}

// Floating point may round `next` back onto `t`; a walk must always move forward.
double strictly_after(double t, double next) {
  return next > t ? next : std::nextafter(t, kNever);
}

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};

double steps_at(const std::vector<Step>& steps, double repeat_s, double t) {
  if (steps.empty()) return 0;
  const double local = repeat_s > 0 ? phase(t, repeat_s) : t;
  auto after = std::ranges::upper_bound(steps, local, {}, &Step::at_s);
  if (after == steps.begin()) return repeat_s > 0 ? steps.back().value : steps.front().value;
  return std::prev(after)->value;
}

double steps_next(const std::vector<Step>& steps, double repeat_s, double t) {
  if (steps.empty()) return kNever;
  if (repeat_s <= 0) {
    auto after = std::ranges::upper_bound(steps, t, {}, &Step::at_s);
    return after == steps.end() ? kNever : after->at_s;
  }
  const double local = phase(t, repeat_s);
  auto after = std::ranges::upper_bound(steps, local, {}, &Step::at_s);
  const double next_local = after == steps.end() ? repeat_s : after->at_s;
  return t + (next_local - local);
}

bool bursts_on(const Bursts& b, double t) {
  return phase(t - b.offset_s, b.period_s) < b.duty * b.period_s;
}

double bursts_next(const Bursts& b, double t) {
  const double local = phase(t - b.offset_s, b.period_s);
  const double on_until = b.duty * b.period_s;
  return t + (local < on_until ? on_until - local : b.period_s - local);
}

}  // namespace

Profile Profile::constant(double value) {
  return Profile(Constant{value});
}

Profile Profile::steps(std::vector<Step> steps, double repeat_s) {
  return Profile(Steps{std::move(steps), repeat_s});
}

Profile Profile::bursts(const Bursts& bursts) {
  // Degenerate duty cycles are constants; this keeps next_change() from producing
  // zero-length segments.
  if (bursts.duty <= 0 || bursts.period_s <= 0) return constant(bursts.idle);
  if (bursts.duty >= 1) return constant(bursts.value);
  return Profile(bursts);
}

double Profile::at(double t) const {
  return std::visit(Overloaded{[](const Constant& c) { return c.value; },
                               [t](const Steps& s) { return steps_at(s.steps, s.repeat_s, t); },
                               [t](const Bursts& b) { return bursts_on(b, t) ? b.value : b.idle; }},
                    shape_);
}

double Profile::next_change(double t) const {
  const double next =
      std::visit(Overloaded{[](const Constant&) { return kNever; },
                            [t](const Steps& s) { return steps_next(s.steps, s.repeat_s, t); },
                            [t](const Bursts& b) { return bursts_next(b, t); }},
                 shape_);
  return strictly_after(t, next);
}

double Profile::period() const {
  if (const auto* s = std::get_if<Steps>(&shape_)) return s->repeat_s;
  if (const auto* b = std::get_if<Bursts>(&shape_)) return b->period_s;
  return 0;
}

double Profile::walk_integral(double a, double b) const {
  double sum = 0;
  for (double t = a; t < b;) {
    const double end = std::min(b, next_change(t));
    sum += at(t) * (end - t);
    t = end;
  }
  return sum;
}

double Profile::integral(double a, double b) const {
  if (b <= a) return 0;
  if (const auto* c = std::get_if<Constant>(&shape_)) return c->value * (b - a);
  const double p = period();
  if (p <= 0 || b - a < 2 * p) return walk_integral(a, b);
  // Whole periods contribute the same amount each, so only the remainder is walked.
  const double cycles = std::floor((b - a) / p);
  return cycles * walk_integral(a, a + p) + walk_integral(a + cycles * p, b);
}

double Profile::mean(double a, double b) const {
  return b > a ? integral(a, b) / (b - a) : at(a);
}

double Profile::max_over(double a, double b) const {
  double best = at(a);
  const double p = period();
  const double stop = p > 0 ? std::min(b, a + p) : b;  // one period shows every value
  for (double t = next_change(a); t < stop; t = next_change(t)) best = std::max(best, at(t));
  return best;
}

bool Profile::is_zero() const {
  return std::visit(Overloaded{[](const Constant& c) { return c.value == 0; },
                               [](const Steps& s) {
                                 return std::ranges::all_of(
                                     s.steps, [](const Step& x) { return x.value == 0; });
                               },
                               [](const Bursts& b) { return b.value == 0 && b.idle == 0; }},
                    shape_);
}

}  // namespace gpumeter::sim
