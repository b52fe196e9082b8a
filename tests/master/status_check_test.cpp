// SPDX-License-Identifier: MIT
#include "master/status_check.h"

#include <gtest/gtest.h>

#include "support/fake_agent.h"

namespace gpumeter::master::status_check_test {

Json good_document() {
  return Json::parse(testing::status_body("node1", 1'000));
}

std::string problem_in(const Json& document) {
  const auto checked = check_status_document(document);
  return checked ? std::string("accepted") : checked.error();
}

TEST(StatusCheck, AcceptsWhatListJsonPrints) {
  const Json document = good_document();
  ASSERT_GE(document["gpus"].size(), 2U);
  EXPECT_EQ(problem_in(document), "accepted");
}

TEST(StatusCheck, AcceptsKeysItDoesNotKnow) {
  Json document = good_document();
  document["added_later"] = {1, 2};
  document["gpus"][0]["added_later"] = "x";
  EXPECT_EQ(problem_in(document), "accepted");
}

TEST(StatusCheck, NamesTheFirstPartThatDoesNotFit) {
  EXPECT_EQ(problem_in(Json::array()), "the document: expected a JSON object");
  EXPECT_EQ(problem_in(Json{{"hello", 1}}), "schema_version: expected 1");

  Json document = good_document();
  document["schema_version"] = 2;
  EXPECT_EQ(problem_in(document), "schema_version: expected 1");

  document = good_document();
  document.erase("host");
  EXPECT_EQ(problem_in(document), "host: expected a string");

  document = good_document();
  document["time_us"] = "yesterday";
  EXPECT_EQ(problem_in(document), "time_us: expected an integer");

  document = good_document();
  document["gpus"] = Json::object();
  EXPECT_EQ(problem_in(document), "gpus: expected an array");

  document = good_document();
  document["gpus"][1]["memory_used_bytes"] = "12 GiB";
  EXPECT_EQ(problem_in(document), "gpus[1].memory_used_bytes: expected a number or null");

  document = good_document();
  document["gpus"][0]["index"] = -1;
  EXPECT_EQ(problem_in(document), "gpus[0].index: expected a non-negative integer");

  document = good_document();
  document["gpus"][1].erase("users");
  EXPECT_EQ(problem_in(document), "gpus[1].users: expected an array or null");

  document = good_document();
  document["gpus"][0] = 7;
  EXPECT_EQ(problem_in(document), "gpus[0]: expected an object");
}

}  // namespace gpumeter::master::status_check_test
