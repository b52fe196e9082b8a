// SPDX-License-Identifier: MIT
// gpumeter.hpp: a header-only C++ wrapper over the C client in gpumeter.h.
//
//   gpumeter::Client client;                 // the default socket; never throws
//   {
//     auto task = client.task("decode", R"({"stream":"cam3"})");
//     ... work ...
//   }                                        // ends here; or call task.end() for the result
//
// It keeps the C library's contract: no exceptions. A client that could not connect, and the
// tasks it begins, are inert (their end() returns the error), so a worker runs unchanged
// without a daemon. Only the C ABI is used, so any C++ compiler and standard library will do.
#pragma once

#include <gpumeter/gpumeter.h>

#include <cstdint>
#include <utility>

namespace gpumeter {

// A zeroed result whose struct_size is this header's, as gpumeter_task_end() requires.
inline gpumeter_task_result empty_task_result() noexcept {
  gpumeter_task_result result{};
  result.struct_size = sizeof(result);
  return result;
}

// The outcome of a task: the status (GPUMETER_OK or a GPUMETER_E_* code) and the figures.
struct Result {
  int status = GPUMETER_E_INVALID;
  gpumeter_task_result figures = empty_task_result();

  bool ok() const noexcept { return status == GPUMETER_OK; }
  const char* error() const noexcept { return gpumeter_strerror(status); }
};

// One task, begun by Client::task() and ended by end() or on destruction. Move-only.
class Task {
 public:
  Task() = default;
  Task(gpumeter_task* task, int status) noexcept : task_(task), status_(status) {}
  Task(Task&& other) noexcept
      : task_(std::exchange(other.task_, nullptr)), status_(other.status_) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      end();
      task_ = std::exchange(other.task_, nullptr);
      status_ = other.status_;
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { end(); }

  // Ends the task (once) and waits for its figures; later calls return the same result.
  const Result& end() noexcept {
    if (task_ != nullptr) {
      result_.status = gpumeter_task_end(std::exchange(task_, nullptr), &result_.figures);
    } else if (!ended_) {
      result_.status = status_ != GPUMETER_OK ? status_ : GPUMETER_E_INVALID;
    }
    ended_ = true;
    return result_;
  }
  // The result of end(); its status is GPUMETER_E_INVALID before the task ended.
  const Result& result() const noexcept { return result_; }
  // GPUMETER_OK when the daemon accepted the begin, else why it did not.
  int begin_status() const noexcept { return status_; }
  std::uint64_t id() const noexcept { return gpumeter_task_id(task_); }

 private:
  gpumeter_task* task_ = nullptr;
  int status_ = GPUMETER_E_INVALID;
  bool ended_ = false;
  Result result_;
};

// A connection to the daemon. Move-only; tasks must not outlive the client that began them.
class Client {
 public:
  // socket_path nullptr: the default socket (see gpumeter_connect()).
  explicit Client(const char* socket_path = nullptr) noexcept
      : status_(gpumeter_connect(socket_path, &client_)) {}
  Client(Client&& other) noexcept
      : client_(std::exchange(other.client_, nullptr)), status_(other.status_) {}
  Client& operator=(Client&& other) noexcept {
    if (this != &other) {
      gpumeter_disconnect(client_);
      client_ = std::exchange(other.client_, nullptr);
      status_ = other.status_;
    }
    return *this;
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client() { gpumeter_disconnect(client_); }

  bool connected() const noexcept { return client_ != nullptr; }
  // GPUMETER_OK, or why gpumeter_connect() failed.
  int status() const noexcept { return status_; }

  // Begins a task now; labels_json is nullptr or a JSON object of strings.
  Task task(const char* name, const char* labels_json = nullptr) noexcept {
    if (client_ == nullptr) return Task(nullptr, status_);
    gpumeter_task* task = nullptr;
    const int status = gpumeter_task_begin(client_, name, labels_json, &task);
    return Task(task, status);
  }

 private:
  gpumeter_client* client_ = nullptr;
  int status_ = GPUMETER_E_INVALID;
};

}  // namespace gpumeter
