#include <kbench/suite/detail/trial_server.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kbench::suite {

trial_server::trial_server(std::vector<std::string> argv)
    : m_worker(std::move(argv), {}, std::string(trial_answer_prefix)) {}

trial_server::~trial_server() = default;

std::vector<trial_outcome> trial_server::run(const trial_request& request, double timeout_s) {
  std::vector<trial_outcome> failed(request.configs.size());
  for (std::size_t i = 0; i < request.configs.size(); ++i) failed[i].values = request.configs[i];
  const auto fail_all = [&](tune::eval_status status, const std::string& why) {
    for (auto& f : failed) {
      f.status = status;
      f.message = why;
    }
    return failed;
  };
  const served_reply reply = m_worker.request(to_request_line(request), timeout_s);
  switch (reply.what) {
    case served_reply::outcome::answered:
      break;
    case served_reply::outcome::timeout:
      return fail_all(tune::eval_status::timeout, fmt::format("{} worker killed after the {:.0f} s timeout",
                                                              to_string(request.phase), timeout_s));
    case served_reply::outcome::died:
      // A worker that died compiling failed the compile; one that died running failed at run time.
      return fail_all(request.phase == trial_phase::compile ? tune::eval_status::compile_error
                                                            : tune::eval_status::runtime_error,
                      reply.message);
    case served_reply::outcome::aborted:  // a second Ctrl-C or SIGTERM: the trial is dropped, not judged
    case served_reply::outcome::failed:
      return fail_all(tune::eval_status::runtime_error, reply.message);
  }
  std::vector<trial_outcome> outcomes;
  try {
    outcomes = nlohmann::json::parse(reply.answer).get<std::vector<trial_outcome>>();
  } catch (const std::exception& e) {
    m_worker.stop(true);
    return fail_all(tune::eval_status::runtime_error,
                    fmt::format("unreadable worker answer ({}): {}", e.what(), reply.answer));
  }
  if (outcomes.size() != request.configs.size()) {
    m_worker.stop(true);
    return fail_all(tune::eval_status::runtime_error, fmt::format("worker returned {} results for {} configs",
                                                                  outcomes.size(), request.configs.size()));
  }
  for (const auto& o : outcomes) {
    if (o.status != tune::eval_status::ok) {
      m_worker.stop(false);  // the next trial gets a fresh worker
      break;
    }
  }
  return outcomes;
}

}  // namespace kbench::suite
