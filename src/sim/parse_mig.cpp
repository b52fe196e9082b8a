// SPDX-License-Identifier: MIT
// A device's "mig" (a mode string, or an object describing MIG mode with its instances) and
// a process's "mig" (the instance it runs in).
#include <fmt/format.h>

#include <set>
#include <utility>

#include "sim/parse_parts.h"

namespace gpumeter::sim::parse {
namespace {

MigInstanceSpec instance(Reader& reader, const Cursor& at, std::size_t device, unsigned position,
                         unsigned max_count) {
  const ObjectCursor object = reader.object(
      at, {"slot", "gpu_instance", "compute_instance", "profile", "memory_total_bytes", "uuid"});
  MigInstanceSpec m;
  m.line = reader.line(at);
  m.slot = static_cast<unsigned>(reader.whole_or(object, "slot", position, max_count - 1));
  m.gpu_instance = static_cast<std::uint32_t>(
      reader.whole(reader.required(object, "gpu_instance", "a GPU-instance id"), 0xFFFF));
  m.compute_instance =
      static_cast<std::uint32_t>(reader.whole_or(object, "compute_instance", 0, 0xFFFF));
  m.profile =
      reader.string(reader.required(object, "profile", "a profile name such as \"1g.10gb\""));
  m.memory_total_bytes =
      reader.whole(reader.required(object, "memory_total_bytes", "the instance's memory in bytes"));
  // Without one, a UUID that is unique within the scenario.
  m.uuid = fmt::format("MIG-{:08x}-0000-4000-9000-{:012x}", device, m.slot);
  if (auto uuid = reader.member(object, "uuid")) {
    m.uuid = reader.string(*uuid);
    if (!reader.failed() && (!m.uuid.starts_with("MIG-") || m.uuid.size() != 40))
      reader.fail(*uuid, "expected a MIG UUID: \"MIG-\" and 36 characters");
  }
  return m;
}

// Two instances may not share a slot, an id pair or a UUID.
void check_unique(Reader& reader, const Cursor& at, const MigSpec& mig) {
  std::set<unsigned> slots;
  std::set<std::pair<std::uint32_t, std::uint32_t>> ids;
  std::set<std::string> uuids;
  for (const MigInstanceSpec& m : mig.instances) {
    if (!slots.insert(m.slot).second)
      reader.fail(at, fmt::format("two MIG instances in slot {}", m.slot));
    if (!ids.insert({m.gpu_instance, m.compute_instance}).second)
      reader.fail(at, fmt::format("two MIG instances with gpu_instance {} and compute_instance {}",
                                  m.gpu_instance, m.compute_instance));
    if (!uuids.insert(m.uuid).second)
      reader.fail(at, fmt::format("two MIG instances with UUID {}", m.uuid));
  }
}

}  // namespace

void mig(Reader& reader, const Cursor& at, DeviceSpec& d, std::size_t index) {
  if (at.value->is_string()) {
    const std::string mode = reader.string(at);
    if (mode != "unsupported" && mode != "disabled")
      reader.fail(at, "expected \"unsupported\", \"disabled\" or an object with \"instances\"");
    d.mig_capable = mode == "disabled";
    return;
  }
  const ObjectCursor object = reader.object(at, {"max_count", "instances"});
  MigSpec spec;
  spec.max_count = static_cast<unsigned>(reader.whole_or(object, "max_count", 7, 8));
  if (!reader.failed() && spec.max_count == 0) reader.fail(at, "expected max_count of 1 to 8");
  unsigned position = 0;
  for (const Cursor& item :
       reader.elements(reader.required(object, "instances", "an array of MIG instances"))) {
    spec.instances.push_back(instance(reader, item, index, position++, spec.max_count));
  }
  if (!reader.failed() && spec.instances.size() > spec.max_count)
    reader.fail(at, fmt::format("more instances than max_count ({})", spec.max_count));
  check_unique(reader, at, spec);
  d.mig_capable = true;
  d.mig = std::move(spec);
}

void mig_placement(Reader& reader, const Cursor& at, const std::vector<DeviceSpec>& devices,
                   ProcessSpec& p) {
  if (reader.failed() || p.device >= devices.size()) return;
  const DeviceSpec& device = devices[p.device];
  const std::optional<Cursor> placement = reader.member(ObjectCursor{at, {}}, "mig");
  if (!device.mig) {
    if (placement) reader.fail(*placement, "the process's device is not in MIG mode");
    return;
  }
  if (!placement) {
    reader.fail(at, "a process on a MIG-enabled GPU needs \"mig\": {\"gpu_instance\": ...}");
    return;
  }
  const ObjectCursor object = reader.object(*placement, {"gpu_instance", "compute_instance"});
  MigPlacement where;
  where.gpu_instance = static_cast<std::uint32_t>(
      reader.whole(reader.required(object, "gpu_instance", "a GPU-instance id"), 0xFFFF));
  where.compute_instance =
      static_cast<std::uint32_t>(reader.whole_or(object, "compute_instance", 0, 0xFFFF));
  if (reader.failed()) return;
  for (const MigInstanceSpec& m : device.mig->instances) {
    if (m.gpu_instance == where.gpu_instance && m.compute_instance == where.compute_instance) {
      p.mig = where;
      return;
    }
  }
  reader.fail(*placement, fmt::format("device {} has no MIG instance with gpu_instance {} and "
                                      "compute_instance {}",
                                      p.device, where.gpu_instance, where.compute_instance));
}

}  // namespace gpumeter::sim::parse
