#pragma once
// The parts of the extension kbench._kbench, each binding one concept of kbench's C++ libraries.

#include <nanobind/nanobind.h>

namespace kbench::python {

/// measure, do_bench, interleaved_bench, compute_repeat and statistics, on Python callables.
void bind_bench(nanobind::module_& m);
/// v3 records, the atomic results file and the history store.
void bind_records(nanobind::module_& m);
/// Tuning: the search over a kernel's parameters and the tuning cache.
void bind_tune(nanobind::module_& m);
/// The suite's engine: defaults, statuses, verdicts, records, served workers and stop signals.
void bind_suite(nanobind::module_& m);

}  // namespace kbench::python
