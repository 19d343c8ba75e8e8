// The environment kbench's worker processes start with: the caller's, plus a short libgomp spin count unless
// the user set one (suite/detail/worker_process.hpp).

#include <kbench/suite/detail/worker_process.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace kbench::suite {
namespace {

std::vector<std::string> entries_starting_with(const std::vector<std::string>& env,
                                               const std::string& prefix) {
  std::vector<std::string> found;
  std::copy_if(env.begin(), env.end(), std::back_inserter(found),
               [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
  return found;
}

TEST(WorkerEnvironment, AddsAShortGompSpinCountUnlessTheUserSetOne) {
  const char* saved = std::getenv("GOMP_SPINCOUNT");
  const std::string kept = saved != nullptr ? saved : "";
  ::setenv("KBENCH_TEST_MARKER", "42", 1);

  ::unsetenv("GOMP_SPINCOUNT");
  auto env = worker_environment();
  EXPECT_EQ(entries_starting_with(env, "GOMP_SPINCOUNT="),
            std::vector<std::string>{std::string("GOMP_SPINCOUNT=") + worker_gomp_spin_count});
  EXPECT_EQ(entries_starting_with(env, "KBENCH_TEST_MARKER="),
            std::vector<std::string>{"KBENCH_TEST_MARKER=42"});

  ::setenv("GOMP_SPINCOUNT", "123", 1);
  env = worker_environment();
  EXPECT_EQ(entries_starting_with(env, "GOMP_SPINCOUNT="), std::vector<std::string>{"GOMP_SPINCOUNT=123"});

  // An override (the torch baseline's tuned spin count) replaces the variable, whoever set it, once.
  env = worker_environment({"GOMP_SPINCOUNT=300000", "KBENCH_TEST_MARKER=7"});
  EXPECT_EQ(entries_starting_with(env, "GOMP_SPINCOUNT="), std::vector<std::string>{"GOMP_SPINCOUNT=300000"});
  EXPECT_EQ(entries_starting_with(env, "KBENCH_TEST_MARKER="),
            std::vector<std::string>{"KBENCH_TEST_MARKER=7"});

  ::unsetenv("KBENCH_TEST_MARKER");
  if (saved != nullptr) {
    ::setenv("GOMP_SPINCOUNT", kept.c_str(), 1);
  } else {
    ::unsetenv("GOMP_SPINCOUNT");
  }
}

TEST(WorkerAnswer, IsTheLastLineOfItsOutputAsJson) {
  worker_outcome outcome;
  outcome.out = "a driver says hello\n{\"kernel\": \"exp\"}\n\n";
  EXPECT_EQ(answer_of(outcome).at("kernel"), "exp");
  outcome.out = "[1, 2]";
  EXPECT_EQ(answer_of(outcome).size(), 2u);
  outcome.out = "{\"kernel\": \"exp\"}\nthe worker died before it answered\n";
  EXPECT_TRUE(answer_of(outcome).is_discarded());
  outcome.out.clear();
  EXPECT_TRUE(answer_of(outcome).is_discarded());
}

}  // namespace
}  // namespace kbench::suite
