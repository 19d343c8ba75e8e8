#include <kbench/backends/cpu.hpp>
#include <kbench/backends/stream_kernels.hpp>
#include <kbench/build_config.hpp>
#include <kbench/error.hpp>

#if KBENCH_HAS_OPENCL
#include <kbench/backends/opencl.hpp>
#endif
#if KBENCH_HAS_CUDA
#include <kbench/backends/cuda.hpp>
#endif

#include <xmmintrin.h>  // _mm_stream_ps, _mm_sfence: SSE, part of the x86-64 baseline

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace kbench {

namespace {

/// [bytes] how far ahead of its loads a streaming loop asks for its inputs with a software prefetch: one 4
/// KiB page, as the kernels' own streaming loops do (kernels/common/cpu_simd.hpp, stream_prefetch_distance).
/// The calibration is the bar the kernels' % peak and % triad are held to, so it asks ahead as they do
/// (docs/code-figures.md).

constexpr std::uintptr_t prefetch_distance = 4096;

/// Asks for the line prefetch_distance bytes past p, once per 64-byte line of a loop that steps 4 floats
/// from float index i (a prefetch never faults; the address is formed as an integer, as it may lie past the
/// array).
[[gnu::always_inline]] inline void prefetch_ahead(const float* p, std::size_t i) {
  if (i % 16 < 4) {
    __builtin_prefetch(
        reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(p) + prefetch_distance));
  }
}

/// b[i] = a[i] for i in [begin, end) through non-temporal stores (SSE movntps, 16-byte aligned; the
/// elements before the first aligned one and after the last whole vector through normal stores): each line
/// of b goes to memory without first being read into the cache, which a normal store's read-for-ownership
/// does. a is asked for a page ahead. The fence orders them before the chunk is reported done.
void copy_streaming_range(const float* a, float* b, std::size_t begin, std::size_t end) {
  std::size_t i = begin;
  for (; i < end && reinterpret_cast<std::uintptr_t>(b + i) % 16 != 0; ++i) b[i] = a[i];
  for (; i + 4 <= end; i += 4) {
    prefetch_ahead(a + i, i);
    _mm_stream_ps(b + i, _mm_loadu_ps(a + i));
  }
  for (; i < end; ++i) b[i] = a[i];
  _mm_sfence();
}

/// a[i] = b[i] + stream_triad_scale * c[i] for i in [begin, end), as copy_streaming_range.
void triad_streaming_range(float* a, const float* b, const float* c, std::size_t begin, std::size_t end) {
  const __m128 scale = _mm_set1_ps(stream_triad_scale);
  std::size_t i = begin;
  for (; i < end && reinterpret_cast<std::uintptr_t>(a + i) % 16 != 0; ++i) {
    a[i] = b[i] + stream_triad_scale * c[i];
  }
  for (; i + 4 <= end; i += 4) {
    prefetch_ahead(b + i, i);
    prefetch_ahead(c + i, i);
    _mm_stream_ps(a + i, _mm_add_ps(_mm_loadu_ps(b + i), _mm_mul_ps(scale, _mm_loadu_ps(c + i))));
  }
  for (; i < end; ++i) a[i] = b[i] + stream_triad_scale * c[i];
  _mm_sfence();
}

stream_kernels cpu_stream_kernels(const std::shared_ptr<cpu::cpu_device>& dev, const buffer_ptr& a,
                                  const buffer_ptr& b, const buffer_ptr& c, std::size_t n) {
  // Each launcher holds all three arrays (its call_result names the one it writes).
  auto loop = [dev, n, a, b, c](auto body, buffer_ptr out) {
    return [dev, n, body, out, a, b, c]() {
      event_ptr e =
          dev->launch([n, body](const cpu::parallel_context& ctx) { ctx.parallel_for(n, 1 << 16, body); });
      return call_result{{e}, {out}};
    };
  };
  float* pa = cpu::float_data(a);
  float* pb = cpu::float_data(b);
  float* pc = cpu::float_data(c);
  return {loop(
              [pa, pb](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) pb[i] = pa[i];
              },
              b),
          loop(
              [pa, pb, pc](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) pa[i] = pb[i] + stream_triad_scale * pc[i];
              },
              a),
          loop([pa, pb](std::size_t begin, std::size_t end) { copy_streaming_range(pa, pb, begin, end); }, b),
          loop([pa, pb, pc](std::size_t begin,
                            std::size_t end) { triad_streaming_range(pa, pb, pc, begin, end); },
               a)};
}

#if KBENCH_HAS_OPENCL
constexpr const char* opencl_stream_source = R"(
__kernel void copy(__global const float4* a, __global float4* b) { size_t i = get_global_id(0); b[i] = a[i]; }
__kernel void triad(__global float4* a, __global const float4* b, __global const float4* c, float s) {
  size_t i = get_global_id(0); a[i] = b[i] + s * c[i];
}
)";
#endif

#if KBENCH_HAS_CUDA
constexpr const char* cuda_stream_source = R"(
extern "C" __global__ void copy(const float4* a, float4* b, long long n4) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n4) b[i] = a[i];
}
extern "C" __global__ void triad(float4* a, const float4* b, const float4* c, float s, long long n4) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n4) { float4 x = b[i], y = c[i]; a[i] = make_float4(x.x + s * y.x, x.y + s * y.y, x.z + s * y.z, x.w + s * y.w); }
}
)";
#endif

}  // namespace

stream_arrays make_stream_arrays(const device_ptr& device, std::size_t elements) {
  const std::size_t bytes = elements * sizeof(float);
  stream_arrays arrays{device->allocate(bytes), device->allocate(bytes), device->allocate(bytes)};
  const std::vector<float> ones(elements, 1.0f);
  for (const buffer_ptr* array : {&arrays.a, &arrays.b, &arrays.c}) (*array)->write(ones.data(), bytes);
  return arrays;
}

stream_kernels make_stream_kernels(const device_ptr& device, const buffer_ptr& a, const buffer_ptr& b,
                                   const buffer_ptr& c, std::size_t elements) {
  if (elements % 4 != 0)
    KBENCH_THROW("stream kernels move float4: {} elements is not a multiple of 4", elements);
  stream_kernels kernels;
  switch (device->info().backend) {
    case backend_kind::cpu:
      return cpu_stream_kernels(std::dynamic_pointer_cast<cpu::cpu_device>(device), a, b, c, elements);
#if KBENCH_HAS_OPENCL
    case backend_kind::opencl: {
      auto cl = std::dynamic_pointer_cast<opencl::opencl_device>(device);
      auto program = cl->build_program(opencl_stream_source);
      auto copy = program.kernel("copy");
      copy.set_arg(0, a);
      copy.set_arg(1, b);
      auto triad = program.kernel("triad");
      triad.set_arg(0, a);
      triad.set_arg(1, b);
      triad.set_arg(2, c);
      triad.set_arg_f32(3, stream_triad_scale);
      const std::array<std::size_t, 1> global{elements / 4};
      kernels.copy = [copy, global, a, b]() mutable { return call_result{{copy.launch(global)}, {b}}; };
      kernels.triad = [triad, global, a, b, c]() mutable { return call_result{{triad.launch(global)}, {a}}; };
      return kernels;
    }
#endif
#if KBENCH_HAS_CUDA
    case backend_kind::cuda: {
      auto cu = std::dynamic_pointer_cast<cuda::cuda_device>(device);
      auto module = cu->build_module(cuda_stream_source);
      const auto n4 = static_cast<std::int64_t>(elements / 4);
      auto copy = module.function("copy");
      copy.set_arg(0, a);
      copy.set_arg(1, b);
      copy.set_arg_i64(2, n4);
      auto triad = module.function("triad");
      triad.set_arg(0, a);
      triad.set_arg(1, b);
      triad.set_arg(2, c);
      triad.set_arg_f32(3, stream_triad_scale);
      triad.set_arg_i64(4, n4);
      const std::array<unsigned, 3> grid{static_cast<unsigned>((n4 + 255) / 256), 1, 1}, block{256, 1, 1};
      kernels.copy = [copy, grid, block, a, b]() mutable {
        return call_result{{copy.launch(grid, block)}, {b}};
      };
      kernels.triad = [triad, grid, block, a, b, c]() mutable {
        return call_result{{triad.launch(grid, block)}, {a}};
      };
      return kernels;
    }
#endif
    default:
      break;
  }
  KBENCH_THROW("the STREAM kernels run on cpu, opencl or cuda devices, not {}",
               to_string(device->info().backend));
}

}  // namespace kbench
