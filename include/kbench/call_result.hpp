#pragma once
// What one call of a kernel implementation returns: the work it enqueued and the outputs it produced.

#include <kbench/buffer.hpp>
#include <kbench/event.hpp>

#include <vector>

namespace kbench {

/// The result of one asynchronous call. `events` are every execution the call enqueued (one per kernel
/// launch); `outputs` are the buffers it wrote. Holding the outputs keeps them alive until the sync on this
/// result has returned, so that buffer teardown never falls inside a timed window.
struct call_result {
  std::vector<event_ptr> events;
  std::vector<buffer_ptr> outputs;
};

}  // namespace kbench
