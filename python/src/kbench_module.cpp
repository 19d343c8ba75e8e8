// kbench._kbench: the extension module of the kbench Python package (python/kbench wraps it).

#include "bindings.hpp"

NB_MODULE(_kbench, m) {
  m.doc() = "kbench's C++ measurement core, records and history; use the kbench package, which wraps it.";
  kbench::python::bind_bench(m);
  kbench::python::bind_records(m);
  kbench::python::bind_tune(m);
  kbench::python::bind_suite(m);
}
