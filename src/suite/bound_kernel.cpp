#include <kbench/error.hpp>
#include <kbench/suite/bound_kernel.hpp>
#include <kbench/sync.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

namespace kbench::suite {

std::vector<buffer_ptr> upload_inputs(device& target, const std::vector<host_tensor>& inputs) {
  std::vector<buffer_ptr> buffers;
  for (const host_tensor& input : inputs) buffers.push_back(target.allocate(input.bytes()));
  rewrite_inputs(buffers, inputs);
  return buffers;
}

void rewrite_inputs(const std::vector<buffer_ptr>& buffers, const std::vector<host_tensor>& inputs) {
  if (buffers.size() != inputs.size()) {
    KBENCH_THROW("{} input buffers for {} inputs", buffers.size(), inputs.size());
  }
  for (std::size_t i = 0; i < inputs.size(); ++i)
    buffers[i]->write(inputs[i].values.data(), inputs[i].bytes());
}

bound_kernel::bound_kernel(const kernel_definition& kernel, const implementation& impl, device_ptr device,
                           const shape& s, const std::vector<host_tensor>& inputs, config cfg)
    : bound_kernel(kernel, impl, device, s, upload_inputs(*device, inputs), std::move(cfg)) {}

std::vector<buffer_ptr> allocate_outputs(device& target, const std::vector<host_tensor>& like,
                                         std::size_t guard_bytes) {
  std::vector<buffer_ptr> buffers;
  for (const host_tensor& output : like) buffers.push_back(target.allocate(output.bytes() + guard_bytes));
  return buffers;
}

bound_kernel::bound_kernel(const kernel_definition& kernel, const implementation& impl, device_ptr device,
                           const shape& s, std::vector<buffer_ptr> device_inputs, config cfg,
                           std::vector<buffer_ptr> device_outputs)
    : m_name(fmt::format("{}/{}", kernel.name, to_string(impl.backend))),
      m_backend(impl.backend),
      m_device(std::move(device)),
      m_config(cfg.empty() ? impl.default_config : std::move(cfg)),
      m_inputs(std::move(device_inputs)),
      m_guard_bytes(kernel.output_guard_bytes) {
  m_launch = impl.bind(kernel_args{m_device, s, m_config, m_inputs, std::move(device_outputs)});
}

bench_target bound_kernel::target() const {
  device_ptr dev = m_device;
  return bench_target{m_name, m_launch, [dev] { dev->barrier(); }, [dev] { dev->flush_caches(); }};
}

namespace {
/// Runs one call of `launch` and waits for it, throwing when a wait returned before the work finished.
call_result call_and_wait(const launcher& launch, const std::string& name) {
  call_result result = launch();
  if (int early = sync_and_check(result); early != 0) {
    drain({&result, 1});
    KBENCH_THROW("{}: {} of {} waits returned before the work finished", name, early, result.events.size());
  }
  return result;
}
}  // namespace

call_result bound_kernel::run_twice_for_reading() const {
  m_device->barrier();
  // Implementations allocate their outputs when bound and write them at every call, and a new allocation
  // may hand back the memory of an earlier binding (another config's, holding its right answer). So the
  // first call shows which buffers the outputs are, they are filled with NaN (all bits set), and a second
  // call must write every element: one that skips some fails the check instead of passing on stale values.
  // Outputs that are also inputs (in place) are left alone.
  const call_result first = call_and_wait(m_launch, m_name);
  for (const buffer_ptr& output : first.outputs) {
    const bool is_an_input = std::find(m_inputs.begin(), m_inputs.end(), output) != m_inputs.end();
    if (output == nullptr || is_an_input) continue;
    output->fill(std::byte{0xFF});
  }
  return call_and_wait(m_launch, m_name);
}

host_tensor bound_kernel::read_output(const call_result& result, std::size_t index,
                                      shape output_shape) const {
  const buffer_ptr& output = result.outputs.at(index);
  if (output == nullptr) KBENCH_THROW("{} returned an empty output", m_name);
  host_tensor out(std::move(output_shape));
  // An output that is also an input was not filled (run_twice_for_reading): its guard is not checked.
  const bool filled = std::find(m_inputs.begin(), m_inputs.end(), output) == m_inputs.end();
  const std::size_t guard =
      filled ? std::min(m_guard_bytes, output->size_bytes() - std::min(output->size_bytes(), out.bytes()))
             : 0;
  if (output->size_bytes() < out.bytes() + guard) {
    KBENCH_THROW("{}: output {} holds {} bytes, the reference needs {}", m_name, index, output->size_bytes(),
                 out.bytes());
  }
  if (guard == 0) {
    output->read(out.values.data(), out.bytes());
    return out;
  }
  // run_twice_for_reading filled the whole buffer with 0xFF before the call read here.
  std::vector<std::byte> bytes(out.bytes() + guard);
  output->read(bytes.data(), bytes.size());
  const auto guard_begin = bytes.begin() + static_cast<std::ptrdiff_t>(out.bytes());
  const auto written =
      std::find_if(guard_begin, bytes.end(), [](std::byte b) { return b != std::byte{0xFF}; });
  if (written != bytes.end()) {
    const auto changed =
        std::count_if(written, bytes.end(), [](std::byte b) { return b != std::byte{0xFF}; });
    KBENCH_THROW(
        "{}: out-of-bounds write: {} of the {} guard bytes after output {} ({} values) changed, the first {} "
        "bytes past its end",
        m_name, changed, guard, index, out.size(), written - guard_begin);
  }
  std::memcpy(out.values.data(), bytes.data(), out.bytes());
  return out;
}

std::vector<host_tensor> bound_kernel::run_and_read(const std::vector<host_tensor>& reference_outputs) const {
  const call_result result = run_twice_for_reading();
  if (result.outputs.size() != reference_outputs.size()) {
    KBENCH_THROW("{} returned {} outputs, the reference has {}", m_name, result.outputs.size(),
                 reference_outputs.size());
  }
  std::vector<host_tensor> outputs;
  for (std::size_t i = 0; i < reference_outputs.size(); ++i)
    outputs.push_back(read_output(result, i, reference_outputs[i].shape));
  return outputs;
}

std::vector<host_tensor> bound_kernel::run_and_read() const {
  const call_result result = run_twice_for_reading();
  std::vector<host_tensor> outputs;
  for (std::size_t i = 0; i < result.outputs.size(); ++i) {
    const buffer_ptr& output = result.outputs[i];
    if (output == nullptr) KBENCH_THROW("{} returned an empty output", m_name);
    const std::size_t bytes = output->size_bytes() - std::min(output->size_bytes(), m_guard_bytes);
    outputs.push_back(read_output(result, i, shape{static_cast<std::int64_t>(bytes / sizeof(float))}));
  }
  return outputs;
}

}  // namespace kbench::suite
