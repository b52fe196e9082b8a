// SPDX-License-Identifier: MIT
#include "cli/interrupt.h"

#include <algorithm>
#include <thread>

namespace gpumeter::cli {
namespace {

// A signal handler can only talk to the program through a flag of this type.
volatile std::sig_atomic_t g_interrupted = 0;

void on_interrupt(int /*signal*/) {
  g_interrupted = 1;
}

}  // namespace

InterruptScope::InterruptScope() {
  g_interrupted = 0;
  struct sigaction action{};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  // SA_RESETHAND: the handler fires once; a second Ctrl-C gets the default action.
  action.sa_flags = static_cast<int>(SA_RESETHAND);
  sigaction(SIGINT, &action, &previous_);
}

InterruptScope::~InterruptScope() {
  sigaction(SIGINT, &previous_, nullptr);
}

bool InterruptScope::interrupted() const noexcept {
  return g_interrupted != 0;
}

bool InterruptScope::sleep_for(std::chrono::milliseconds duration) const {
  // Short slices, so that Ctrl-C is noticed within a tenth of a second.
  constexpr std::chrono::milliseconds kSlice{100};
  while (duration.count() > 0 && !interrupted()) {
    const auto step = std::min(duration, kSlice);
    std::this_thread::sleep_for(step);
    duration -= step;
  }
  return !interrupted();
}

}  // namespace gpumeter::cli
