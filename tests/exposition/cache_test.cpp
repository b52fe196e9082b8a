// SPDX-License-Identifier: MIT
// The cache renders once per snapshot, for any number of concurrent readers.
#include "exposition/cache.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "support/sampler_sim.h"
#include "support/text_reader.h"

namespace gpumeter::exposition::cache_test {

using Cache = gpumeter::testing::SimulatedMachine;

// gpumeter_sampler_rounds_total in the rendered text.
double rounds(const RenderedMetrics& rendered) {
  const auto parsed = testing::parse_exposition(rendered.text);
  if (!parsed) ADD_FAILURE() << parsed.error();
  const auto found =
      parsed ? parsed->find("gpumeter_sampler_rounds_total") : std::vector<testing::Sample>{};
  return found.size() == 1 ? found[0].value : -1;
}

TEST_F(Cache, NothingBeforeTheFirstSnapshotThenOneTextPerSnapshot) {
  open_example("dgx-8gpu");
  Sampler sampler(gpus(), host(), {});
  MetricsCache cache(sampler, {});
  EXPECT_EQ(cache.current(), nullptr);

  run(sampler, 0, 1);
  const auto first = cache.current();
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(rounds(*first), 2);
  EXPECT_EQ(first->host, sampler.snapshot()->hostname);
  EXPECT_EQ(cache.current(), first);  // the same snapshot: the same text, not rendered again

  run(sampler, 2, 2);
  const auto second = cache.current();
  ASSERT_NE(second, nullptr);
  EXPECT_NE(second, first);
  EXPECT_EQ(rounds(*second), 3);
}

TEST_F(Cache, ConcurrentReadersOfOneSnapshotShareOneText) {
  open_example("dgx-8gpu");
  Sampler sampler(gpus(), host(), {});
  MetricsCache cache(sampler, {});
  run(sampler, 0, 3);
  std::vector<std::shared_ptr<const RenderedMetrics>> seen(8);
  std::vector<std::thread> readers;
  for (auto& slot : seen) {
    readers.emplace_back([&cache, &slot] { slot = cache.current(); });
  }
  for (auto& reader : readers) reader.join();
  for (const auto& text : seen) EXPECT_EQ(text, seen.front());
  ASSERT_NE(seen.front(), nullptr);
}

}  // namespace gpumeter::exposition::cache_test
