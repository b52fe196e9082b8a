// SPDX-License-Identifier: MIT
// One entry of "processes": which GPU, which pid, how much memory and utilisation, when,
// and what the host knows about it.
#include <fmt/format.h>

#include <charconv>
#include <cstdlib>
#include <filesystem>

#include "sim/parse_parts.h"

namespace gpumeter::sim::parse {
namespace {

// "pid_env" names an environment variable holding the pid of a real process (so a test
// can spawn one and describe it here); "pid", if also given, is the pid when it is unset.
std::optional<std::uint32_t> pid_from_env(Reader& reader, const Cursor& at) {
  const std::string name = reader.string(at);
  const char* text = reader.failed() ? nullptr : std::getenv(name.c_str());
  if (text == nullptr) return std::nullopt;
  std::uint32_t pid = 0;
  const std::string_view view(text);
  auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), pid);
  if (ec != std::errc() || end != view.data() + view.size() || pid == 0) {
    reader.fail(at,
                fmt::format("environment variable {} holds \"{}\", expected a pid", name, view));
  }
  return pid;
}

// `real` becomes true when the pid came from pid_env: a real process.
std::uint32_t pid(Reader& reader, const ObjectCursor& object, bool& real) {
  if (auto env = reader.member(object, "pid_env")) {
    if (auto from_env = pid_from_env(reader, *env)) {
      real = true;
      return *from_env;
    }
    if (!reader.member(object, "pid") && !reader.failed()) {
      reader.fail(
          *env,
          fmt::format("environment variable {} (named by pid_env) is not set, and there is no "
                      "\"pid\" to fall back on",
                      env->value->get<std::string>()));
    }
  }
  const Cursor at =
      reader.required(object, "pid", "a pid (or \"pid_env\" naming a variable that holds one)");
  const auto value = static_cast<std::uint32_t>(reader.whole(at, 4'194'304));
  if (!reader.failed() && value == 0) reader.fail(at, "expected a pid above 0");
  return value;
}

// "pid_file" names a file that a real process writes its own pid into once it runs (a
// process that `gpumeter run` starts has no pid before then). Absolute, because the scenario
// is read from more than one working directory; exclusive with the other ways to name a pid,
// and with "host", since the process is real and /proc describes it.
std::string pid_file(Reader& reader, const ObjectCursor& object, const Cursor& at) {
  std::string path = reader.string(at);
  if (reader.failed()) return path;
  if (!std::filesystem::path(path).is_absolute()) {
    reader.fail(at, fmt::format("expected an absolute path, found \"{}\"", path));
  } else if (reader.member(object, "pid") || reader.member(object, "pid_env")) {
    reader.fail(at, "expected one of \"pid\", \"pid_env\" or \"pid_file\", not several");
  } else if (auto host = reader.member(object, "host")) {
    reader.fail(*host,
                "a process named by \"pid_file\" is a real one, described by /proc: "
                "expected no \"host\"");
  }
  return path;
}

void add_type(Reader& reader, const Cursor& at, ProcessTypes& types) {
  const std::string name = reader.string(at);
  if (name == "compute")
    types.compute = true;
  else if (name == "graphics")
    types.graphics = true;
  else if (name == "mps")
    types.mps = true;
  else if (!reader.failed())
    reader.fail(at,
                fmt::format("expected \"compute\", \"graphics\" or \"mps\", found \"{}\"", name));
}

ProcessTypes types(Reader& reader, const std::optional<Cursor>& at) {
  ProcessTypes out;
  if (!at) {
    out.compute = true;
    return out;
  }
  if (at->value->is_array()) {
    for (const Cursor& item : reader.elements(*at)) add_type(reader, item, out);
  } else {
    add_type(reader, *at, out);
  }
  return out;
}

void utilization(Reader& reader, const Cursor& at, ProcessSpec& p) {
  const ObjectCursor object = reader.object(at, {"sm", "mem", "enc", "dec"});
  p.sm = profile(reader, reader.required(object, "sm", "a utilisation profile (percent)"), 0, 100);
  if (auto mem = reader.member(object, "mem")) p.mem = profile(reader, *mem, 0, 100);
  if (auto enc = reader.member(object, "enc")) p.enc = profile(reader, *enc, 0, 100);
  if (auto dec = reader.member(object, "dec")) p.dec = profile(reader, *dec, 0, 100);
}

std::vector<std::string> command(Reader& reader, const Cursor& at) {
  std::vector<std::string> argv;
  for (const Cursor& item : reader.elements(at)) argv.push_back(reader.string(item));
  if (!reader.failed() && argv.empty()) reader.fail(at, "expected at least the program name");
  return argv;
}

HostSpec host(Reader& reader, const Cursor& at) {
  HostSpec h;
  if (at.value->is_string()) {
    if (reader.string(at) != "hidden")
      reader.fail(at, "expected \"hidden\" or an object with \"user\" and \"command\"");
    h.hidden = true;
    return h;
  }
  const ObjectCursor object =
      reader.object(at, {"user", "uid", "command", "started_s", "container"});
  h.user = reader.string(reader.required(object, "user", "a user name"));
  if (auto uid = reader.member(object, "uid"))
    h.uid = static_cast<std::uint32_t>(reader.whole(*uid, UINT32_MAX));
  h.command = command(
      reader, reader.required(object, "command", "an array such as [\"python3\", \"train.py\"]"));
  h.started_s = reader.number_or(object, "started_s", 0);
  if (auto c = reader.member(object, "container")) {
    const ObjectCursor container = reader.object(*c, {"runtime", "id"});
    h.container =
        ContainerSpec{reader.string(reader.required(container, "runtime", "e.g. \"docker\"")),
                      reader.string(reader.required(container, "id", "a container id"))};
  }
  return h;
}

void lifetime(Reader& reader, const ObjectCursor& object, ProcessSpec& p) {
  const double default_start = p.host && !p.host->hidden ? p.host->started_s : 0;
  p.start_s = reader.number_or(object, "start_s", default_start);
  if (auto end = reader.member(object, "end_s")) {
    p.end_s = reader.number(*end);
    if (!reader.failed() && p.end_s <= p.start_s) reader.fail(*end, "expected end_s after start_s");
  }
}

}  // namespace

ProcessSpec process(Reader& reader, const Cursor& at, std::size_t device_count) {
  const ObjectCursor object =
      reader.object(at, {"device", "pid", "pid_env", "pid_file", "type", "name",
                         "used_memory_bytes", "utilization", "start_s", "end_s", "host", "mig"});
  ProcessSpec p;
  p.line = reader.line(at);
  p.device =
      device_index(reader, reader.required(object, "device", "a device index"), device_count);
  bool real = false;
  if (auto file = reader.member(object, "pid_file"))
    p.pid_file = pid_file(reader, object, *file);
  else
    p.pid = pid(reader, object, real);
  p.types = types(reader, reader.member(object, "type"));
  p.name = reader.string_or(object, "name", "");
  p.memory_bytes = Profile::constant(0);
  if (auto memory = reader.member(object, "used_memory_bytes")) {
    if (memory->value->is_null())
      p.memory_bytes.reset();
    else
      p.memory_bytes = profile(reader, *memory, 0, 1e15);
  }
  if (auto u = reader.member(object, "utilization")) utilization(reader, *u, p);
  if (auto h = reader.member(object, "host")) p.host = host(reader, *h);
  lifetime(reader, object, p);
  // A pid from pid_env is a real process, which /proc describes (its user, command, start
  // time, CPU and memory): its "host" stands in for it only while the variable is unset. Its
  // GPU lifetime above still starts where the host block says.
  if (real) p.host.reset();
  p.real = real || !p.pid_file.empty();
  return p;
}

}  // namespace gpumeter::sim::parse
