// SPDX-License-Identifier: MIT
// A fake Prometheus server for the master's tests: a real httplib server answering
// GET /api/v1/query with the vector the test set for that exact query, or an error answer
// as Prometheus writes it for any other query.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "support/fake_agent.h"

namespace gpumeter::master::testing {

struct FakeSample {
  std::map<std::string, std::string> labels;
  std::string value;  // as Prometheus writes it: "0.42", "NaN"
};

// The body of a successful instant query, evaluated at `time`.
inline std::string vector_answer(const std::vector<FakeSample>& samples, double time) {
  Json result = Json::array();
  for (const FakeSample& sample : samples) {
    result.push_back({{"metric", sample.labels}, {"value", {time, sample.value}}});
  }
  return Json{{"status", "success"}, {"data", {{"resultType", "vector"}, {"result", result}}}}
      .dump();
}

class FakePrometheus {
 public:
  FakePrometheus() {
    server_.routes().Get(
        "/api/v1/query", [this](const httplib::Request& request, httplib::Response& response) {
          const std::lock_guard lock(mutex_);
          const auto answer = answers_.find(request.get_param_value("query"));
          if (answer == answers_.end()) {
            response.status = 400;
            response.set_content(
                R"({"status":"error","errorType":"bad_data","error":"unexpected query"})",
                "application/json");
            return;
          }
          response.set_content(answer->second, "application/json");
        });
    server_.start();
  }

  void answer(const std::string& query, std::string body) {
    const std::lock_guard lock(mutex_);
    answers_[query] = std::move(body);
  }
  std::string url() const { return server_.url(); }

 private:
  std::mutex mutex_;
  std::map<std::string, std::string> answers_;
  FakeServer server_;
};

}  // namespace gpumeter::master::testing
