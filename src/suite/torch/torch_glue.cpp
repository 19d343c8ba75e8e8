#include "suite/torch/torch_glue.hpp"

#include <kbench/backends/cpu.hpp>
#include <kbench/error.hpp>
#include <kbench/suite/baseline_setting.hpp>

#include <ATen/Parallel.h>

#include <chrono>
#include <cstring>

namespace kbench::suite::torch_glue {

namespace {
std::vector<std::int64_t> sizes_of(const shape& s) {
  return {s.begin(), s.end()};
}
std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

at::Tensor view(host_tensor& t) {
  return at::from_blob(t.values.data(), sizes_of(t.shape), at::TensorOptions().dtype(at::kFloat));
}

at::Tensor view(const host_tensor& t) {
  // from_blob takes a non-const pointer; the tensor is only read by the references.
  return at::from_blob(const_cast<float*>(t.values.data()), sizes_of(t.shape),
                       at::TensorOptions().dtype(at::kFloat));
}

at::Tensor view(const buffer_ptr& b, const shape& s) {
  if (b->size_bytes() < static_cast<std::size_t>(element_count(s)) * sizeof(float)) {
    KBENCH_THROW("buffer of {} bytes is too small for a float32 tensor of shape {}", b->size_bytes(),
                 to_string(s));
  }
  return at::from_blob(cpu::float_data(b), sizes_of(s), at::TensorOptions().dtype(at::kFloat));
}

host_tensor to_host(const at::Tensor& t) {
  const at::Tensor contiguous = t.to(at::kFloat).contiguous();
  host_tensor result(shape(contiguous.sizes().begin(), contiguous.sizes().end()));
  std::memcpy(result.values.data(), contiguous.data_ptr<float>(), result.bytes());
  return result;
}

launcher synchronous_launcher(const kernel_args& args, std::function<void()> body,
                              std::vector<buffer_ptr> outputs) {
  const int threads = suite::baseline_threads(args.config);
  return [body = std::move(body), outputs = std::move(outputs), threads]() {
    if (threads > 0 && at::get_num_threads() != threads) at::set_num_threads(threads);
    const std::int64_t start = steady_now_ns();
    body();
    const std::int64_t end = steady_now_ns();
    return call_result{{make_completed_event(device_interval{start, end})}, outputs};
  };
}

}  // namespace kbench::suite::torch_glue
