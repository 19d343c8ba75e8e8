#pragma once
// A test double of a kernel: y = -x on the cpu backend over `floats` elements, with no torch baseline. Its
// config CLOBBER=1 also overwrites its own input x after each call: the fault of a config that writes into
// its inputs (suite/detail/config_trial.hpp keeps it from spoiling the next config's check). It declares its
// bytes moved (x read, y written) so that the suite reports its bandwidth.

#include <kbench/backends/cpu.hpp>
#include <kbench/suite/kernel.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace kbench::test {
using namespace kbench::suite;  // the suite's kernel API, unqualified

inline kernel_definition negate_kernel(std::int64_t floats = 4096) {
  kernel_definition k;
  k.name = "negate";
  k.shapes = {shape{floats}};
  k.bytes_moved = [](const shape& s) { return 2.0 * static_cast<double>(element_count(s)) * sizeof(float); };
  k.make_inputs = [](const shape& s, std::uint64_t) {
    host_tensor x(s);
    for (std::size_t i = 0; i < x.size(); ++i) x.values[i] = static_cast<float>(i % 97) - 48.0f;
    return std::vector<host_tensor>{x};
  };
  k.reference = [](const std::vector<host_tensor>& inputs) {
    host_tensor y(inputs[0].shape);
    for (std::size_t i = 0; i < y.size(); ++i) y.values[i] = -inputs[0].values[i];
    return std::vector<host_tensor>{y};
  };
  implementation cpu_impl;
  cpu_impl.backend = backend_kind::cpu;
  cpu_impl.default_config = {{"CLOBBER", 0}};
  cpu_impl.bind = [](const kernel_args& args) -> launcher {
    auto device = std::dynamic_pointer_cast<cpu::cpu_device>(args.device);
    const auto n = static_cast<std::size_t>(element_count(args.shape));
    const bool clobber = args.config.at("CLOBBER") != 0;
    buffer_ptr input = args.inputs.at(0);
    buffer_ptr output = device->allocate(n * sizeof(float));
    return [device, input, output, n, clobber] {
      float* x = cpu::float_data(input);
      float* y = cpu::float_data(output);
      event_ptr done = device->launch([=](const cpu::parallel_context&) {
        for (std::size_t i = 0; i < n; ++i) y[i] = -x[i];
        if (clobber) {
          for (std::size_t i = 0; i < n; ++i) x[i] = 12345.0f;
        }
      });
      return call_result{{done}, {output}};
    };
  };
  k.implementations.push_back(cpu_impl);
  return k;
}

}  // namespace kbench::test
