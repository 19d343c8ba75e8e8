#pragma once
// kbench's umbrella header: the measurement core (devices, synchronized timing with verified waits, the three
// measures, statistics) and the backends. The layers above (io, tune, suite, history, report) have their own
// folders under kbench/; include what you use from them.

#include <kbench/bench.hpp>
#include <kbench/bench_target.hpp>
#include <kbench/buffer.hpp>
#include <kbench/call_result.hpp>
#include <kbench/config.hpp>
#include <kbench/device.hpp>
#include <kbench/error.hpp>
#include <kbench/event.hpp>
#include <kbench/fault_injection.hpp>
#include <kbench/host_cache.hpp>
#include <kbench/host_tensor.hpp>
#include <kbench/measure.hpp>
#include <kbench/stats.hpp>
#include <kbench/sync.hpp>

#include <kbench/backends/cpu.hpp>
#include <kbench/backends/registry.hpp>
