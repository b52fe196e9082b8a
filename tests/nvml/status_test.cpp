// SPDX-License-Identifier: MIT
#include "nvml/status.h"

#include <gtest/gtest.h>

namespace gpumeter::nvml::status_test {

using namespace abi;

TEST(StatusTest, UnsupportedAndMissingFunctionsAreNotSupported) {
  EXPECT_EQ(to_unavailable(kErrorNotSupported), Unavailable::not_supported);
  EXPECT_EQ(to_unavailable(kErrorFunctionNotFound), Unavailable::not_supported);
}

TEST(StatusTest, NoPermission) {
  EXPECT_EQ(to_unavailable(kErrorNoPermission), Unavailable::no_permission);
}

TEST(StatusTest, LostGpuCodes) {
  for (Return code : {kErrorGpuIsLost, kErrorGpuNotFound, kErrorResetRequired}) {
    EXPECT_EQ(to_unavailable(code), Unavailable::gpu_lost) << return_name(code);
    EXPECT_TRUE(means_gpu_lost(code)) << return_name(code);
  }
  EXPECT_FALSE(means_gpu_lost(kErrorUnknown));
  EXPECT_FALSE(means_gpu_lost(kErrorNoPermission));
}

TEST(StatusTest, NotFoundMeansProcessGoneOnlyForAProcess) {
  EXPECT_EQ(to_unavailable(kErrorNotFound, CallScope::process), Unavailable::process_gone);
  EXPECT_EQ(to_unavailable(kErrorNotFound, CallScope::device), Unavailable::error);
}

TEST(StatusTest, EverythingElseIsAnError) {
  for (Return code : {kErrorUnknown, kErrorTimeout, kErrorUninitialized, kErrorInvalidArgument,
                      kErrorInsufficientSize, kErrorArgumentVersionMismatch, kErrorMemory}) {
    EXPECT_EQ(to_unavailable(code), Unavailable::error) << return_name(code);
    EXPECT_EQ(to_unavailable(code, CallScope::process), Unavailable::error) << return_name(code);
  }
}

TEST(StatusTest, LostGpuWinsOverProcessScope) {
  EXPECT_EQ(to_unavailable(kErrorGpuIsLost, CallScope::process), Unavailable::gpu_lost);
}

TEST(StatusTest, OlderCallIsTriedOnlyForVersionTrouble) {
  EXPECT_TRUE(means_try_older_call(kErrorFunctionNotFound));
  EXPECT_TRUE(means_try_older_call(kErrorArgumentVersionMismatch));
  EXPECT_TRUE(means_try_older_call(kErrorNotSupported));
  EXPECT_FALSE(means_try_older_call(kErrorNoPermission));
  EXPECT_FALSE(means_try_older_call(kErrorGpuIsLost));
  EXPECT_FALSE(means_try_older_call(kErrorUnknown));
}

TEST(StatusTest, NamesForMessages) {
  EXPECT_EQ(return_name(kSuccess), "SUCCESS");
  EXPECT_EQ(return_name(kErrorGpuIsLost), "GPU_IS_LOST");
  EXPECT_EQ(return_name(kErrorUnknown), "UNKNOWN");
  EXPECT_EQ(return_name(static_cast<Return>(77)), "UNRECOGNIZED");
  EXPECT_EQ(describe_return(kErrorNoPermission), "NO_PERMISSION (4)");
  EXPECT_EQ(describe_return(static_cast<Return>(77)), "UNRECOGNIZED (77)");
}

}  // namespace gpumeter::nvml::status_test
