// The served tuning worker (suite/detail/trial_server.hpp) with the real kbench binary and the add kernel on
// the cpu backend (compile trials on opencl): trials that pass share one worker; a config that returns wrong
// values, crashes or hangs gets its status, and the next trial runs in a fresh worker.

#include <kbench/suite/detail/trial_server.hpp>

#include "run_kbench.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace kbench::test {
namespace {

using suite::trial_outcome;
using suite::trial_phase;
using suite::trial_request;
using tune::eval_status;

/// The first `wanted` cpu configs of add's shape 0 ([128,128], 12 configs), as JSON text.
std::vector<std::string> add_configs(std::size_t wanted) {
  const auto r = run_kbench("tune --kernel add --backend cpu --shape-index 0 --show-space");
  std::vector<std::string> configs;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line) && configs.size() < wanted;) {
    if (!line.empty()) configs.push_back(line);
  }
  return configs;
}

suite::trial_server add_server() {
  return suite::trial_server({KBENCH_EXE, "worker", R"({"task":"trials","kernel":"add","backend":"cpu"})"});
}

trial_request time_request(const std::string& config_text) {
  trial_request request;
  request.phase = trial_phase::time;
  request.configs = {parse_config_text(config_text)};
  request.target_ms = 2;
  return request;
}

/// Sets KBENCH_INJECT_TRIAL_FAULT for the workers this test starts, and unsets it after.
class injected_faults {
 public:
  explicit injected_faults(const std::string& spec) {
    ::setenv("KBENCH_INJECT_TRIAL_FAULT", spec.c_str(), 1);
  }
  ~injected_faults() { ::unsetenv("KBENCH_INJECT_TRIAL_FAULT"); }
  injected_faults(const injected_faults&) = delete;
  injected_faults& operator=(const injected_faults&) = delete;
};

TEST(TrialServer, TrialsThatPassShareOneWorker) {
  const auto configs = add_configs(2);
  ASSERT_EQ(configs.size(), 2u);
  auto server = add_server();
  for (int i = 0; i < 3; ++i) {
    const auto outcomes = server.run(time_request(configs[static_cast<std::size_t>(i % 2)]), 60);
    ASSERT_EQ(outcomes.size(), 1u);
    EXPECT_EQ(outcomes[0].status, eval_status::ok) << outcomes[0].message;
    EXPECT_GT(outcomes[0].time_ms, 0);
    EXPECT_EQ(to_json_text(outcomes[0].values), configs[static_cast<std::size_t>(i % 2)]);
  }
  trial_request retime;
  retime.phase = trial_phase::retime;
  retime.target_ms = 2;
  for (const auto& c : configs) retime.configs.push_back(parse_config_text(c));
  const auto retimed = server.run(retime, 60);
  ASSERT_EQ(retimed.size(), 2u);
  for (const auto& o : retimed) {
    EXPECT_EQ(o.status, eval_status::ok) << o.message;
    // The final pick compares these intervals (final_pick.hpp): they come back through the worker's line.
    EXPECT_GT(o.time_ci_low_ms, 0);
    EXPECT_LE(o.time_ci_low_ms, o.time_ms);
    EXPECT_GE(o.time_ci_high_ms, o.time_ms);
  }
  EXPECT_EQ(server.workers_started(), 1);
}

TEST(TrialServer, WrongCrashAndHangGetTheirStatusAndTheNextTrialAFreshWorker) {
  const auto configs = add_configs(4);
  ASSERT_EQ(configs.size(), 4u);
  const injected_faults faults("add|" + configs[0] + "|wrong;add|" + configs[1] + "|segv;add|" + configs[2] +
                               "|hang");
  auto server = add_server();
  EXPECT_EQ(server.run(time_request(configs[3]), 60).at(0).status, eval_status::ok);

  const trial_outcome wrong = server.run(time_request(configs[0]), 60).at(0);
  EXPECT_EQ(wrong.status, eval_status::wrong_result) << wrong.message;
  EXPECT_EQ(server.workers_started(), 1);

  const trial_outcome crashed = server.run(time_request(configs[1]), 60).at(0);
  EXPECT_EQ(crashed.status, eval_status::runtime_error);
  EXPECT_NE(crashed.message.find("worker died on signal 11"), std::string::npos) << crashed.message;
  EXPECT_EQ(server.workers_started(), 2) << "a fresh worker after the wrong result";

  const trial_outcome hung = server.run(time_request(configs[2]), 5).at(0);
  EXPECT_EQ(hung.status, eval_status::timeout) << hung.message;
  EXPECT_EQ(server.workers_started(), 3) << "a fresh worker after the crash";

  const trial_outcome after = server.run(time_request(configs[3]), 60).at(0);
  EXPECT_EQ(after.status, eval_status::ok) << after.message;
  EXPECT_EQ(server.workers_started(), 4) << "a fresh worker after the hang";
}

TEST(TrialServer, CompileTrialsOnOpenclShareOneWorker) {
  const auto r = run_kbench("tune --kernel add --backend opencl --shape-index 0 --show-space");
  if (r.exit_code != 0) GTEST_SKIP() << "no opencl backend here: " << r.output;
  std::vector<std::string> configs;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line) && configs.size() < 2;) {
    if (!line.empty()) configs.push_back(line);
  }
  ASSERT_EQ(configs.size(), 2u);
  suite::trial_server server(
      {KBENCH_EXE, "worker", R"({"task":"trials","kernel":"add","backend":"opencl"})"});
  for (const auto& c : configs) {
    trial_request request;
    request.phase = trial_phase::compile;
    request.configs = {parse_config_text(c)};
    const auto outcomes = server.run(request, 120);
    ASSERT_EQ(outcomes.size(), 1u);
    EXPECT_EQ(outcomes[0].status, eval_status::ok) << outcomes[0].message;
    EXPECT_GT(outcomes[0].build_s, 0) << "the program was built";
    EXPECT_EQ(outcomes[0].time_ms, 0) << "a compile trial times nothing";
  }
  EXPECT_EQ(server.workers_started(), 1);
}

TEST(TrialServer, AWorkerThatCannotStartIsARuntimeError) {
  suite::trial_server server({"/nonexistent/kbench", "worker", R"({"task":"trials","kernel":"add"})"});
  const auto outcomes = server.run(time_request(R"({"A":1})"), 5);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].status, eval_status::runtime_error);
  EXPECT_NE(outcomes[0].message.find("cannot start a worker"), std::string::npos) << outcomes[0].message;
}

}  // namespace
}  // namespace kbench::test
