// SPDX-License-Identifier: MIT
// GPM through dlopen of the simulated library: support by architecture, samples of a GPU and
// of a GPU instance, and metrics over exactly the window between two samples.
#include <gtest/gtest.h>

#include <memory>

#include "support/sim_library.h"
#include "support/temp_scenario.h"

namespace gpumeter::sim::gpm_test {

namespace abi = nvml::abi;
using testing::Session;
using testing::SimLibrary;
using testing::TempScenario;

// Device 0 (Hopper) runs one process at 40 % SM until t = 15 and 80 % after, 30 % memory:
// over [10, 20] its mean SM is 60 %. Device 1 (Hopper, MIG) has one process at 50 % SM on
// GPU instance 3 and one at 30 % on instance 4. Device 2 is an A100 (Ampere): no GPM.
constexpr std::string_view kGpm = R"({
  "devices": [
    {"name": "NVIDIA H100 80GB HBM3", "architecture": "hopper", "memory_total_bytes": 85899345920,
     "pci": {"tx_kbps": 102400, "rx_kbps": 204800},
     "gpm": {"sm_occupancy_ratio": 0.5, "tensor_ratio": 0.25, "nvlink_tx_mib_per_s": 1000,
             "nvlink_rx_mib_per_s": 2000}},
    {"name": "NVIDIA H100 80GB HBM3", "architecture": "hopper", "memory_total_bytes": 85899345920,
     "mig": {"instances": [
       {"gpu_instance": 3, "profile": "3g.40gb", "memory_total_bytes": 42949672960},
       {"gpu_instance": 4, "profile": "3g.40gb", "memory_total_bytes": 42949672960}]}},
    {"name": "NVIDIA A100-SXM4-40GB", "architecture": "ampere", "memory_total_bytes": 42949672960}
  ],
  "processes": [
    {"device": 0, "pid": 700,
     "utilization": {"sm": {"steps": [[0, 40], [15, 80]]}, "mem": 30}},
    {"device": 1, "pid": 701, "utilization": {"sm": 50, "mem": 20}, "mig": {"gpu_instance": 3}},
    {"device": 1, "pid": 702, "utilization": {"sm": 30, "mem": 10}, "mig": {"gpu_instance": 4}}
  ]
})";

class Gpm : public ::testing::Test {
 protected:
  TempScenario scenario{kGpm};
  SimLibrary& library = SimLibrary::open("sim");
  Session session{library, scenario.path(), 10};

  abi::GpmSample alloc() const {
    abi::GpmSample sample = nullptr;
    EXPECT_EQ(session.fn<abi::GpmSampleAllocFn>("nvmlGpmSampleAlloc")(&sample), abi::kSuccess);
    return sample;
  }
  void free(abi::GpmSample sample) const {
    EXPECT_EQ(session.fn<abi::GpmSampleFreeFn>("nvmlGpmSampleFree")(sample), abi::kSuccess);
  }
  abi::Return get(abi::Device device, abi::GpmSample sample) const {
    return session.fn<abi::GpmSampleGetFn>("nvmlGpmSampleGet")(device, sample);
  }

  // The metrics between two samples; `ids` in order.
  std::unique_ptr<abi::GpmMetricsGet> metrics(abi::GpmSample older, abi::GpmSample newer,
                                              std::initializer_list<std::uint32_t> ids,
                                              abi::Return expected = abi::kSuccess) const {
    auto out = std::make_unique<abi::GpmMetricsGet>();
    out->version = abi::kGpmMetricsGetVersion;
    out->num_metrics = static_cast<std::uint32_t>(ids.size());
    out->sample1 = older;
    out->sample2 = newer;
    std::size_t i = 0;
    for (const std::uint32_t id : ids) out->metrics[i++].metric_id = id;
    EXPECT_EQ(session.fn<abi::GpmMetricsGetFn>("nvmlGpmMetricsGet")(out.get()), expected);
    return out;
  }
};

TEST_F(Gpm, SupportFollowsTheArchitecture) {
  const auto query = session.fn<abi::GpmQuerySupportFn>("nvmlGpmQueryDeviceSupport");
  abi::GpmSupport support{abi::kGpmSupportVersion, 9};
  EXPECT_EQ(query(session.device(0), &support), abi::kSuccess);
  EXPECT_EQ(support.is_supported_device, 1U);
  support = {abi::kGpmSupportVersion, 9};
  EXPECT_EQ(query(session.device(2), &support), abi::kSuccess);
  EXPECT_EQ(support.is_supported_device, 0U);
  support = {0, 9};
  EXPECT_EQ(query(session.device(0), &support), abi::kErrorArgumentVersionMismatch);
  const abi::GpmSample sample = alloc();
  EXPECT_EQ(get(session.device(2), sample), abi::kErrorNotSupported);
  free(sample);
}

TEST_F(Gpm, MetricsOverExactlyTheWindowBetweenTheSamples) {
  const abi::GpmSample a = alloc(), b = alloc();
  ASSERT_EQ(get(session.device(0), a), abi::kSuccess);
  session.at(20);
  ASSERT_EQ(get(session.device(0), b), abi::kSuccess);
  const auto got = metrics(a, b,
                           {abi::kGpmSmUtil, abi::kGpmSmOccupancy, abi::kGpmAnyTensorUtil,
                            abi::kGpmDramBwUtil, abi::kGpmPcieTxPerSec, abi::kGpmPcieRxPerSec,
                            abi::kGpmNvlinkTotalTxPerSec, abi::kGpmNvlinkTotalRxPerSec, 4});
  const double expected[] = {60, 30, 15, 30, 60, 120, 600, 1200};
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(got->metrics[i].nvml_return, abi::kSuccess) << i;
    EXPECT_DOUBLE_EQ(got->metrics[i].value, expected[i]) << i;
  }
  EXPECT_EQ(got->metrics[8].nvml_return, abi::kErrorNotSupported);  // INTEGER_UTIL: not simulated
  metrics(b, a, {abi::kGpmSmUtil}, abi::kErrorInvalidArgument);     // not in time order
  free(a);
  free(b);
}

TEST_F(Gpm, GpuInstanceSamplesCountOnlyTheirProcesses) {
  const abi::GpmSample a = alloc(), b = alloc(), c = alloc(), d = alloc();
  const auto mig_get = session.fn<abi::GpmMigSampleGetFn>("nvmlGpmMigSampleGet");
  ASSERT_EQ(mig_get(session.device(1), 3, a), abi::kSuccess);
  abi::Device handle = nullptr;
  ASSERT_EQ(session.fn<abi::DeviceMigHandleByIndexFn>("nvmlDeviceGetMigDeviceHandleByIndex")(
                session.device(1), 1, &handle),
            abi::kSuccess);
  ASSERT_EQ(get(handle, c), abi::kSuccess);  // through the MIG handle: GPU instance 4
  EXPECT_EQ(mig_get(session.device(1), 5, d), abi::kErrorNotFound);
  session.at(12);
  ASSERT_EQ(mig_get(session.device(1), 3, b), abi::kSuccess);
  ASSERT_EQ(get(handle, d), abi::kSuccess);
  EXPECT_DOUBLE_EQ(metrics(a, b, {abi::kGpmSmUtil})->metrics[0].value, 50);
  EXPECT_DOUBLE_EQ(metrics(c, d, {abi::kGpmSmUtil, abi::kGpmDramBwUtil})->metrics[1].value, 10);
  EXPECT_DOUBLE_EQ(metrics(c, d, {abi::kGpmSmUtil})->metrics[0].value, 30);
  metrics(a, d, {abi::kGpmSmUtil}, abi::kErrorInvalidArgument);  // two different instances
  for (const abi::GpmSample s : {a, b, c, d}) free(s);
}

}  // namespace gpumeter::sim::gpm_test
