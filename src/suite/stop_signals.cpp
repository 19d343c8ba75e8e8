#include <kbench/suite/stop_signals.hpp>
#include <kbench/suite/workers.hpp>

#include <unistd.h>

#include <atomic>
#include <string_view>

namespace kbench::suite {

namespace {

std::atomic<int> g_stop_signals{0};
std::atomic<int> g_first_signal{0};
static_assert(std::atomic<int>::is_always_lock_free, "read and written in signal handlers");

constexpr std::array<int, 3> stop_signals{SIGINT, SIGTERM, SIGHUP};

void say(std::string_view message) {
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, message.data(), message.size());
}

extern "C" void on_stop_signal(int signal_number) {
  const int count = g_stop_signals.fetch_add(1) + 1;
  if (count == 1) {
    g_first_signal.store(signal_number);
    say("\nkbench: interrupted; stopping after the current shape (Ctrl-C again to stop now)\n");
  } else if (count == 2) {
    abort_workers();
    say("\nkbench: stopping now; the current shape is dropped, the ones before are written\n");
  } else {
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
  }
}

}  // namespace

stop_signal_scope::stop_signal_scope() {
  g_stop_signals = 0;
  g_first_signal = 0;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  for (std::size_t i = 0; i < stop_signals.size(); ++i) sigaction(stop_signals[i], &action, &m_previous[i]);
}

stop_signal_scope::~stop_signal_scope() {
  for (std::size_t i = 0; i < stop_signals.size(); ++i) sigaction(stop_signals[i], &m_previous[i], nullptr);
}

bool stop_requested() noexcept {
  return g_stop_signals.load() > 0;
}

int first_stop_signal() noexcept {
  return g_first_signal.load();
}

}  // namespace kbench::suite
