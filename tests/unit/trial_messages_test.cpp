// The lines a served tuning worker reads (suite/detail/trial_messages.hpp): a request survives the round
// trip, and a malformed one is a usage error that names the line.

#include <kbench/error.hpp>
#include <kbench/suite/detail/trial_messages.hpp>

#include <gtest/gtest.h>

namespace kbench::suite {
namespace {

TEST(TrialMessages, ARequestLineRoundTrips) {
  trial_request request;
  request.phase = trial_phase::time;
  request.configs = {parse_config_text(R"({"ISA":2,"TASK":4096})"),
                     parse_config_text(R"({"ISA":0,"TASK":8192})")};
  request.target_ms = 7.5;
  request.incumbent_ms = 0.125;
  request.retime_within = 1.25;
  request.give_up_above = 4.5;
  request.time_limit_s = 120;
  const std::string line = to_request_line(request);
  EXPECT_EQ(line.find('\n'), std::string::npos) << "one request, one line";
  const trial_request back = parse_request_line(line, backend_kind::opencl, 42);
  EXPECT_EQ(back.phase, trial_phase::time);
  ASSERT_EQ(back.configs.size(), 2u);
  EXPECT_EQ(to_json_text(back.configs[0]), to_json_text(request.configs[0]));
  EXPECT_EQ(to_json_text(back.configs[1]), to_json_text(request.configs[1]));
  EXPECT_DOUBLE_EQ(back.target_ms, 7.5);
  EXPECT_DOUBLE_EQ(back.incumbent_ms, 0.125);
  EXPECT_DOUBLE_EQ(back.retime_within, 1.25);
  EXPECT_DOUBLE_EQ(back.give_up_above, 4.5);
  EXPECT_DOUBLE_EQ(back.time_limit_s, 120);
  EXPECT_EQ(back.backend, backend_kind::opencl) << "backend and seed are the worker's";
  EXPECT_EQ(back.seed, 42u);
}

TEST(TrialMessages, AMalformedRequestIsAUsageError) {
  for (const char* line :
       {"not json", R"({"configs":[]})", R"({"phase":"warp","configs":[],"target_ms":1})"}) {
    try {
      (void)parse_request_line(line, backend_kind::cpu, 0);
      ADD_FAILURE() << "accepted: " << line;
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find(line == std::string("not json") ? "not json" : "phase"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace kbench::suite
