// SPDX-License-Identifier: MIT
// Status documents rebuilt from the metrics that agents export to Prometheus, one per `host`
// label, in the shape of `gpumeter list --json` (schemas/list.schema.json) with "source":
// "prometheus". What Prometheus does not carry (serial numbers, processes, most clocks) is
// null, with "not_supported" as its reason.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "master/node.h"
#include "master/prometheus_client.h"

namespace gpumeter::master {

// The answers of the queries the master makes (docs/master.md, "Prometheus mode").
struct PrometheusReadings {
  std::vector<PromSample> gpu_series;  // {__name__=~"gpumeter_gpu_.+"}
  std::vector<PromSample> gpu_times;   // timestamp(gpumeter_gpu_info)
  std::vector<PromSample> users;       // gpumeter_user_processes
};

// The PromQL of each reading, in the order of PrometheusReadings' members.
inline constexpr const char* kGpuSeriesQuery = R"({__name__=~"gpumeter_gpu_.+"})";
inline constexpr const char* kGpuTimesQuery = "timestamp(gpumeter_gpu_info)";
// Every user with a process on a GPU has this series (the memory one is absent when some
// process's memory is unknown).
inline constexpr const char* kUsersQuery = "gpumeter_user_processes";

// One document per host that has at least one gpumeter_gpu_info series, keyed by host. Series
// without a host or gpu label, or with a gpu label that is not a number, are left out.
std::map<std::string, Json> status_documents(const PrometheusReadings& readings);

}  // namespace gpumeter::master
