// Deliberately broken synchronization (see fault_injection.hpp).

#include <kbench/error.hpp>
#include <kbench/fault_injection.hpp>

#include <memory>
#include <string>
#include <utility>

namespace kbench {
namespace {

/// An event whose wait() returns at once, like torch.accelerator.synchronize() on the TPU. The status query
/// and the timestamps come from the real event, so the sync check sees that the work is still running.
class no_wait_event final : public event {
 public:
  explicit no_wait_event(event_ptr inner) : m_inner(std::move(inner)) {}
  [[nodiscard]] bool is_complete() const override { return m_inner->is_complete(); }
  void wait() override {}
  [[nodiscard]] std::optional<device_interval> interval() const override { return m_inner->interval(); }

 private:
  event_ptr m_inner;
};

}  // namespace

std::string_view to_string(sync_fault fault) {
  switch (fault) {
    case sync_fault::none:
      return "none";
    case sync_fault::result:
      return "result";
    case sync_fault::barrier:
      return "barrier";
    case sync_fault::both:
      return "both";
  }
  return "unknown";
}

sync_fault parse_sync_fault(std::string_view name) {
  for (sync_fault f : {sync_fault::none, sync_fault::result, sync_fault::barrier, sync_fault::both}) {
    if (name == to_string(f)) {
      return f;
    }
  }
  throw usage_error("unknown sync fault '" + std::string(name) + "' (valid: none, result, barrier, both)");
}

bench_target inject_sync_fault(bench_target target, sync_fault fault) {
  const bool break_result = fault == sync_fault::result || fault == sync_fault::both;
  const bool break_barrier = fault == sync_fault::barrier || fault == sync_fault::both;
  if (break_result && target.call) {
    target.call = [inner = std::move(target.call)]() {
      call_result r = inner();
      for (event_ptr& e : r.events) {
        if (e) {
          e = std::make_shared<no_wait_event>(std::move(e));
        }
      }
      return r;
    };
  }
  if (break_barrier) {
    // Set even where the target had no barrier: otherwise barrier_and_check would fall back to waiting on
    // every result, which is a real sync.
    target.barrier = [] {};
  }
  return target;
}

}  // namespace kbench
