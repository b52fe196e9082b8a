// SPDX-License-Identifier: MIT
#include "cli/shortage.h"

#include <gtest/gtest.h>

#include "support/sample_snapshot.h"

namespace gpumeter::cli::shortage_test {

using testing::sample_snapshot;

TEST(Shortage, NamesEachExcludedGpuAndWhy) {
  const Snapshot snapshot = sample_snapshot();
  Selection selection{.eligible = {},
                      .excluded = {{1, Exclusion::utilization_busy},
                                   {3, Exclusion::lost},
                                   {0, Exclusion::compute_prohibited},
                                   {4, Exclusion::memory_unknown}}};
  EXPECT_EQ(describe_shortage(snapshot.gpus, selection, 1),
            "no free GPU: 4 of 5 in use (GPU 1: 100% util, 893MiB/16.0GiB; GPU 3: lost; "
            "GPU 0: compute mode prohibited; GPU 4: memory use unknown)");
}

TEST(Shortage, FewerFreeThanAskedFor) {
  const Snapshot snapshot = sample_snapshot();
  Selection selection{.eligible = {0}, .excluded = {{2, Exclusion::memory_busy}}};
  EXPECT_EQ(describe_shortage(snapshot.gpus, selection, 2),
            "only 1 of the 2 GPUs asked for is free: 1 of 5 in use (GPU 2: 0% util, "
            "4.0GiB/16.0GiB)");
}

TEST(Shortage, NoGpusAtAll) {
  EXPECT_EQ(describe_shortage(GpuReading{}, Selection{}, 1), "no GPUs found");
}

TEST(Shortage, TheRealSelectionOfTheSample) {
  const Snapshot snapshot = sample_snapshot();
  const Selection selection = select_gpus(snapshot.gpus, {});
  // GPU 0 is free; GPU 4's unreadable process list does not hide its idle readings.
  EXPECT_EQ(selection.eligible, (std::vector<std::size_t>{0, 4}));
  EXPECT_EQ(describe_shortage(snapshot.gpus, selection, 3),
            "only 2 of the 3 GPUs asked for are free: 3 of 5 in use (GPU 1: 100% util, "
            "893MiB/16.0GiB; GPU 2: 0% util, 4.0GiB/16.0GiB; GPU 3: lost)");
}

TEST(Reserved, AllTakenByOthers) {
  EXPECT_EQ(describe_reserved(5, 0, 1),
            "no free GPU: 5 of 5 free GPUs reserved by earlier `gpumeter available -l` calls, "
            "until the job that asked for each starts using it (30 s at most) or its shell "
            "exits; --no-reserve prints them anyway");
}

TEST(Reserved, SomeTakenByOthers) {
  EXPECT_EQ(describe_reserved(3, 1, 2),
            "only 1 of the 2 GPUs asked for could be reserved: 2 of 3 free GPUs reserved by "
            "earlier `gpumeter available -l` calls, until the job that asked for each starts "
            "using it (30 s at most) or its shell exits; --no-reserve prints them anyway");
}

}  // namespace gpumeter::cli::shortage_test
