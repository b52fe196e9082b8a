// SPDX-License-Identifier: MIT
// The per-GPU families: one per exported row of the model's metric table (core/metrics.h).
#include <array>
#include <string>

#include "core/metrics.h"
#include "exposition/parts.h"

namespace gpumeter::exposition {
namespace {

// How a reading in the model's unit becomes the exposition's base unit.
enum class Conversion : std::uint8_t { none, percent_to_ratio, megahertz_to_hertz };

Conversion conversion_of(const MetricSpec& spec) {
  if (spec.unit == "percent") return Conversion::percent_to_ratio;
  if (spec.unit == "MHz") return Conversion::megahertz_to_hertz;
  return Conversion::none;
}

double converted(double value, Conversion conversion) {
  switch (conversion) {
    case Conversion::none: return value;
    // A division, not a multiplication by 0.01: 99 / 100.0 is exactly the double 0.99.
    case Conversion::percent_to_ratio: return value / 100.0;
    case Conversion::megahertz_to_hertz: return value * 1e6;
  }
  return value;
}

std::string text_or_empty(const Maybe<std::string>& text) {
  return text ? *text : std::string();
}

void append_info(fmt::memory_buffer& out, const Snapshot& snapshot,
                 const std::vector<Labels>& labels) {
  Family info(out, "gpumeter_gpu_info", MetricType::gauge,
              "Always 1: the GPU's identity in labels, with the driver's version");
  const std::string driver = text_or_empty(snapshot.gpus.driver.driver_version);
  for (const Labels& gpu : labels) info.sample(gpu.with("driver_version", driver), 1);
}

void append_up(fmt::memory_buffer& out, const Snapshot& snapshot,
               const std::vector<Labels>& labels) {
  Family up(out, "gpumeter_gpu_up", MetricType::gauge,
            "1 while the GPU answers, 0 once it is lost (fell off the bus or needs a reset)");
  for (std::size_t i = 0; i < labels.size(); ++i) {
    up.sample(labels[i], snapshot.gpus.devices[i].lost ? 0 : 1);
  }
}

// One family per exported row of the model's metric table (core/metrics.h).
void append_reading(fmt::memory_buffer& out, const Snapshot& snapshot,
                    const std::vector<Labels>& labels, const MetricSpec& spec) {
  Family family(out, spec.prometheus, spec.kind, spec.help);
  const Conversion conversion = conversion_of(spec);
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const Maybe<double>& value = snapshot.gpus.devices[i].state[spec.id];
    if (value) family.sample(labels[i], converted(*value, conversion));
  }
}

void append_process_counts(fmt::memory_buffer& out, const Snapshot& snapshot,
                           const std::vector<Labels>& labels) {
  Family processes(out, "gpumeter_gpu_processes", MetricType::gauge,
                   "Processes with a context on the GPU (compute, graphics or MPS)");
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto& listed = snapshot.gpus.devices[i].processes;
    if (listed) processes.sample(labels[i], static_cast<double>(listed->size()));
  }
}

// Persistence mode keeps the driver loaded with no client: without it, the first process after
// an idle spell waits for the driver to initialise the GPU (seconds on large machines).
void append_persistence(fmt::memory_buffer& out, const Snapshot& snapshot,
                        const std::vector<Labels>& labels) {
  Family persistence(out, "gpumeter_gpu_persistence_mode", MetricType::gauge,
                     "1 while the driver's persistence mode is on for the GPU, 0 while it is off");
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const Maybe<bool>& on = snapshot.gpus.devices[i].state.persistence_mode;
    if (on) persistence.sample(labels[i], *on ? 1 : 0);
  }
}

}  // namespace

std::vector<Labels> gpu_labels(const Snapshot& snapshot) {
  std::vector<Labels> labels;
  labels.reserve(snapshot.gpus.devices.size());
  for (const Device& device : snapshot.gpus.devices) {
    Labels gpu;
    gpu.add("host", snapshot.hostname)
        .add("gpu", std::to_string(device.identity.index))
        .add("uuid", text_or_empty(device.identity.uuid))
        .add("name", text_or_empty(device.identity.name));
    labels.push_back(std::move(gpu));
  }
  return labels;
}

void append_gpu_metrics(fmt::memory_buffer& out, const Snapshot& snapshot,
                        const std::vector<Labels>& labels) {
  append_info(out, snapshot, labels);
  append_up(out, snapshot, labels);
  for (const MetricSpec& spec : device_metrics()) {
    if (!spec.prometheus.empty()) append_reading(out, snapshot, labels, spec);
  }
  append_process_counts(out, snapshot, labels);
  append_persistence(out, snapshot, labels);
}

}  // namespace gpumeter::exposition
