// SPDX-License-Identifier: MIT
// cgroup v1: a group below ours in the hierarchy of each controller the limits need, and in
// the memory hierarchy for the high-water mark; co-mounted controllers share one group.
#include <fmt/format.h>

#include <algorithm>

#include "core/text.h"
#include "host/cgroup_parts.h"

namespace gpumeter::host::cgroup_parts {
namespace {

class CgroupV1 final : public RunCgroup {
 public:
  CgroupV1(CgroupFs& fs, std::vector<std::filesystem::path> dirs,
           std::optional<std::filesystem::path> memory)
      : fs_(fs), dirs_(std::move(dirs)), memory_(std::move(memory)) {}
  ~CgroupV1() override { [[maybe_unused]] const auto removed = remove(); }
  CgroupV1(const CgroupV1&) = delete;
  CgroupV1& operator=(const CgroupV1&) = delete;

  std::expected<void, std::string> make();
  std::expected<void, std::string> apply(const CgroupLayout& layout, const Limits& limits,
                                         const std::string& name);

  CgroupVersion version() const noexcept override { return CgroupVersion::v1; }
  const std::filesystem::path& path() const noexcept override {
    return memory_ ? *memory_ : dirs_.front();
  }
  std::vector<std::filesystem::path> directories() const override {
    std::vector<std::filesystem::path> all = dirs_;
    if (memory_) {
      std::erase(all, *memory_);
      all.insert(all.begin(), *memory_);
    }
    return all;
  }
  void keep() noexcept override { made_ = 0; }
  std::expected<void, std::string> add(Pid pid) override {
    for (const auto& dir : dirs_) {
      if (auto added = write(fs_, dir / "cgroup.procs", std::to_string(pid)); !added) {
        return added;
      }
    }
    return {};
  }
  Maybe<std::uint64_t> memory_peak_bytes() override {
    if (!memory_) return std::unexpected(Unavailable::not_supported);
    return read_number(fs_, *memory_ / "memory.max_usage_in_bytes");
  }
  std::expected<void, std::string> remove() override;

 private:
  CgroupFs& fs_;
  std::vector<std::filesystem::path> dirs_;  // one per hierarchy
  std::optional<std::filesystem::path> memory_;
  std::size_t made_ = 0;  // dirs_[0, made_) exist
};

std::expected<void, std::string> CgroupV1::make() {
  for (; made_ < dirs_.size(); ++made_) {
    if (auto made = fs_.make_directory(dirs_[made_]); !made) {
      return std::unexpected(failure("create", dirs_[made_], made.error()));
    }
  }
  return {};
}

// A new cpuset group starts with no CPUs and no memory nodes, and takes no process until it
// has both: it gets the parent's memory nodes and the CPUs asked for.
std::expected<void, std::string> set_cpus(CgroupFs& fs, const std::filesystem::path& dir,
                                          const std::string& cpus) {
  const auto mems = fs.read(dir.parent_path() / "cpuset.mems");
  if (!mems)
    return std::unexpected(failure("read", dir.parent_path() / "cpuset.mems", mems.error()));
  const auto lines = split_lines(*mems);
  if (auto done = write(fs, dir / "cpuset.mems", lines.empty() ? "" : lines.front()); !done) {
    return done;
  }
  return write(fs, dir / "cpuset.cpus", cpus);
}

std::expected<void, std::string> CgroupV1::apply(const CgroupLayout& layout, const Limits& limits,
                                                 const std::string& name) {
  const auto dir = [&](std::string_view controller) {
    return layout.v1.find(controller)->second / name;
  };
  if (limits.cpu) {
    // The period first: a quota is checked against the period in force.
    auto done = write(fs_, dir("cpu") / "cpu.cfs_period_us", std::to_string(limits.cpu->period_us));
    if (done)
      done = write(fs_, dir("cpu") / "cpu.cfs_quota_us", std::to_string(limits.cpu->quota_us));
    if (!done) return done;
  }
  if (limits.cpuset) {
    if (auto done = set_cpus(fs_, dir("cpuset"), *limits.cpuset); !done) return done;
  }
  if (limits.memory_bytes) {
    auto done =
        write(fs_, dir("memory") / "memory.limit_in_bytes", std::to_string(*limits.memory_bytes));
    if (!done) return done;
  }
  return {};
}

std::expected<void, std::string> CgroupV1::remove() {
  for (; made_ > 0; --made_) {
    if (auto removed = remove_group(fs_, dirs_[made_ - 1]); !removed) return removed;
  }
  return {};
}

}  // namespace

Created create_v1(CgroupFs& fs, const CgroupLayout& layout, const CgroupRequest& request,
                  const Controllers& controllers) {
  Controllers wanted = controllers;
  if (layout.v1.contains("memory") && std::ranges::find(wanted, "memory") == wanted.end()) {
    wanted.emplace_back("memory");
  }
  std::vector<std::filesystem::path> dirs;
  for (const std::string& controller : wanted) {
    const auto dir = layout.v1.find(controller)->second / request.name;
    if (std::ranges::find(dirs, dir) == dirs.end()) dirs.push_back(dir);
  }
  if (dirs.empty()) return std::unexpected("no cgroup v1 hierarchy to make a group in");
  std::optional<std::filesystem::path> memory;
  if (const auto it = layout.v1.find("memory"); it != layout.v1.end()) {
    memory = it->second / request.name;
  }
  auto group = std::make_unique<CgroupV1>(fs, std::move(dirs), std::move(memory));
  if (auto made = group->make(); !made) return std::unexpected(std::move(made.error()));
  if (auto applied = group->apply(layout, request.limits, request.name); !applied) {
    return std::unexpected(std::move(applied.error()));
  }
  return group;
}

}  // namespace gpumeter::host::cgroup_parts
