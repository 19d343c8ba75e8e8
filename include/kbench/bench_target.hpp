#pragma once
// What the measurement core times: one asynchronous call and the device-wide barrier behind it.

#include <kbench/call_result.hpp>

#include <functional>
#include <string>

namespace kbench {

/// A callable under measurement. `call` enqueues one call and returns at once on asynchronous backends;
/// `barrier` waits for the whole device. `flush_cache`, when set, evicts the device's caches between samples
/// (device::flush_caches; empty: the host's caches are flushed, flush_host_cache).
struct bench_target {
  std::string name;
  std::function<call_result()> call;
  std::function<void()> barrier;
  std::function<void()> flush_cache;
};

}  // namespace kbench
