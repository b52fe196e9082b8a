// SPDX-License-Identifier: MIT
// A value that changes over scenario time: utilisation percent, memory bytes. Every profile
// is piecewise constant (constant, steps, bursts), so means and integrals over any window
// are exact, and the simulator never has to pick a sampling step.
#pragma once

#include <variant>
#include <vector>

namespace gpumeter::sim {

struct Step {
  double at_s = 0;  // from this time on (scenario seconds)
  double value = 0;
};

// `value` during the first `duty` of every period (shifted by offset_s), `idle` otherwise.
struct Bursts {
  double period_s = 1;
  double duty = 0;
  double value = 0;
  double offset_s = 0;
  double idle = 0;
};

class Profile {
 public:
  Profile() = default;  // constant 0
  static Profile constant(double value);
  // `steps` sorted by time; before the first step the first value holds. With repeat_s > 0
  // the pattern repeats every repeat_s seconds (steps then lie in [0, repeat_s)).
  static Profile steps(std::vector<Step> steps, double repeat_s = 0);
  static Profile bursts(const Bursts& bursts);

  double at(double t) const;
  // ∫ value dt over [a, b] (0 when b <= a).
  double integral(double a, double b) const;
  double mean(double a, double b) const;
  double max_over(double a, double b) const;
  // The first time after t at which the value may change (+inf if never). Always > t.
  double next_change(double t) const;
  bool is_zero() const;

 private:
  struct Constant {
    double value = 0;
  };
  struct Steps {
    std::vector<Step> steps;
    double repeat_s = 0;
  };
  using Shape = std::variant<Constant, Steps, Bursts>;

  explicit Profile(Shape shape) : shape_(std::move(shape)) {}
  double period() const;  // 0 when the profile does not repeat
  double walk_integral(double a, double b) const;

  Shape shape_ = Constant{};
};

}  // namespace gpumeter::sim
