// SPDX-License-Identifier: MIT
// The exported C functions. Each one catches everything: no exception crosses the C ABI.
#include <gpumeter/gpumeter.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "connection.h"
#include "protocol.h"

struct gpumeter_client {
  explicit gpumeter_client(std::string path) : socket_path(path), connection(std::move(path)) {}
  std::string socket_path;
  std::mutex mutex;  // one request and its reply at a time
  gpumeter::client::Connection connection;
  // Guarded by `mutex`: the daemon instance of the task ids seen (0 before the first, and for
  // a daemon whose ids carry none), and whether its restart was told already.
  std::uint64_t daemon_instance = 0;
  bool restart_told = false;
};

struct gpumeter_task {
  gpumeter_client* client;
  std::uint64_t id;
};

namespace {

constexpr const char* kSystemSocket = "/run/gpumeter/gpumeter.sock";

bool exists(const std::string& path) {
  return ::access(path.c_str(), F_OK) == 0;
}

// A user's session has XDG_RUNTIME_DIR even when the daemon is the system one, so the user
// socket is chosen only if it exists, or if neither does.
std::string default_socket_path() {
  if (const char* explicit_path = std::getenv("GPUMETER_SOCKET"); explicit_path && *explicit_path) {
    return explicit_path;
  }
  if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime) {
    std::string user = std::string(runtime) + "/gpumeter.sock";
    if (exists(user) || !exists(kSystemSocket)) return user;
  }
  return kSystemSocket;
}

// Runs `body`, turning exceptions into error codes.
template <typename Body>
int guarded(Body body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return GPUMETER_E_NO_MEMORY;
  } catch (const std::exception&) {
    return GPUMETER_E_PROTOCOL;
  }
}

// The request is made once the handle is ours, so that the CPU time it carries is read at
// the moment it is sent, not before a wait for another thread's request.
template <typename MakeRequest>
int exchange(gpumeter_client& client, MakeRequest make_request, std::string& reply) {
  const std::scoped_lock lock(client.mutex);
  const std::string request = make_request(gpumeter::client::own_cpu_times());
  if (request.empty()) return GPUMETER_E_INVALID;
  return client.connection.exchange(request, reply);
}

int connect_client(const char* socket_path, gpumeter_client** out) {
  auto client =
      std::make_unique<gpumeter_client>(socket_path ? socket_path : default_socket_path());
  const int status = client->connection.open();
  if (status == GPUMETER_OK) *out = client.release();
  return status;
}

// A task id carries its daemon's instance from bit 32 on (docs/task-protocol.md): a begin
// answered by another instance means the daemon restarted, and the tasks begun before it
// will not be measured. Said once per handle, on stderr, as the Python client warns.
void note_daemon_instance(gpumeter_client& client, std::uint64_t id) {
  const std::uint64_t instance = id >> 32U;
  if (instance == 0) return;
  const std::scoped_lock lock(client.mutex);
  if (client.daemon_instance != 0 && instance != client.daemon_instance && !client.restart_told) {
    client.restart_told = true;
    std::fprintf(stderr,
                 "gpumeter: the daemon at %s restarted; tasks begun before it are not measured\n",
                 client.socket_path.c_str());
  }
  client.daemon_instance = instance;
}

int begin_task(gpumeter_client* client, const char* name, const char* labels_json,
               gpumeter_task** out) {
  const auto request = [&](gpumeter::client::CpuTimes cpu) {
    return gpumeter::client::begin_request(name, labels_json, cpu);
  };
  std::string reply;
  const int status = exchange(*client, request, reply);
  if (status != GPUMETER_OK) return status;
  const std::int64_t id = gpumeter::client::parse_begin_reply(reply);
  if (id < 0) return static_cast<int>(id);
  note_daemon_instance(*client, static_cast<std::uint64_t>(id));
  *out = new gpumeter_task{client, static_cast<std::uint64_t>(id)};
  return GPUMETER_OK;
}

int end_task(const gpumeter_task& task, gpumeter_task_result* result) {
  if (result != nullptr && result->struct_size < sizeof(result->struct_size)) {
    return GPUMETER_E_INVALID;
  }
  std::string reply;
  const auto request = [&](gpumeter::client::CpuTimes cpu) {
    return gpumeter::client::end_request(task.id, result != nullptr, cpu);
  };
  const int status = exchange(*task.client, request, reply);
  if (status != GPUMETER_OK) return status;
  return gpumeter::client::parse_end_reply(reply, result);
}

}  // namespace

extern "C" {

int gpumeter_connect(const char* socket_path, gpumeter_client** out) {
  if (out == nullptr) return GPUMETER_E_INVALID;
  *out = nullptr;
  return guarded([&] { return connect_client(socket_path, out); });
}

void gpumeter_disconnect(gpumeter_client* client) {
  delete client;
}

int gpumeter_task_begin(gpumeter_client* client, const char* name, const char* labels_json,
                        gpumeter_task** out) {
  if (out == nullptr) return GPUMETER_E_INVALID;
  *out = nullptr;
  if (client == nullptr || name == nullptr || *name == '\0') return GPUMETER_E_INVALID;
  return guarded([&] { return begin_task(client, name, labels_json, out); });
}

uint64_t gpumeter_task_id(const gpumeter_task* task) {
  return task ? task->id : 0;
}

int gpumeter_task_end(gpumeter_task* task, gpumeter_task_result* result) {
  if (task == nullptr) return GPUMETER_E_INVALID;
  const int status = guarded([&] { return end_task(*task, result); });
  delete task;
  return status;
}

const char* gpumeter_strerror(int error) {
  switch (error) {
    case GPUMETER_OK: return "success";
    case GPUMETER_E_INVALID: return "invalid argument or request";
    case GPUMETER_E_NO_DAEMON: return "no gpumeter daemon is listening at the socket";
    case GPUMETER_E_PROTOCOL: return "the daemon's reply does not follow the task protocol";
    case GPUMETER_E_NOT_PERMITTED: return "not permitted";
    case GPUMETER_E_UNKNOWN_TASK: return "no such open task (ended, abandoned or never begun)";
    case GPUMETER_E_UNKNOWN_PROCESS: return "the daemon cannot identify the calling process";
    case GPUMETER_E_LIMIT: return "too many open tasks or connections";
    case GPUMETER_E_DAEMON: return "the daemon reported an internal fault";
    case GPUMETER_E_IO: return "reading or writing the daemon's socket failed or timed out";
    case GPUMETER_E_NO_MEMORY: return "out of memory";
    default: return "unknown gpumeter error";
  }
}

}  // extern "C"
