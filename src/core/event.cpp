#include <kbench/event.hpp>

#include <chrono>
#include <thread>

namespace kbench {

namespace {

/// Work that already ran on the host: complete from birth.
class completed_event final : public event {
 public:
  explicit completed_event(device_interval interval) : m_interval(interval) {}
  [[nodiscard]] bool is_complete() const override { return true; }
  void wait() override {}
  [[nodiscard]] std::optional<device_interval> interval() const override { return m_interval; }

 private:
  device_interval m_interval;
};

}  // namespace

event_ptr make_completed_event(device_interval interval) {
  return std::make_shared<completed_event>(interval);
}

void wait_by_polling(const event& e, int poll_us) {
  while (!e.is_complete()) {
    std::this_thread::sleep_for(std::chrono::microseconds(poll_us));
  }
}

}  // namespace kbench
