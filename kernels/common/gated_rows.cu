// The body of the gated linear units on CUDA (geglu, swiglu): out[r, j] = a[r, j] * gate(b[r, j]) with
// a = x[r, 0:N], b = x[r, N:2N], x of [M, 2N] floats. Embedded after cuda_elementwise_prelude.cu and the
// kernel's own file, which defines gate(float). The M x ceil(N / VEC) vectors are numbered row by row; thread
// t owns vector t, then strides by the whole grid (the host caps the grid). float2/float4 accesses need
// VEC-aligned rows, i.e. N % VEC == 0 (cuMemAlloc aligns the base to 256 bytes); otherwise, and for a row's
// partial last vector, the thread goes element by element.

extern "C" __global__ void __launch_bounds__(BLOCK)
    gated_rows_f32(const float* __restrict__ x, float* __restrict__ y, long long rows, long long cols) {
  const long long vecs_per_row = (cols + VEC - 1) / VEC;
  const long long total = rows * vecs_per_row;
  const bool aligned = cols % VEC == 0;
  const long long stride = (long long)gridDim.x * BLOCK;
  for (long long v = (long long)blockIdx.x * BLOCK + threadIdx.x; v < total; v += stride) {
    const long long row = v / vecs_per_row;
    const long long first = (v - row * vecs_per_row) * VEC;
    const float* a = x + row * 2 * cols;
    const float* b = a + cols;
    float* out = y + row * cols;
    if (aligned && first + VEC <= cols) {
#if VEC == 4
      const float4 av = *reinterpret_cast<const float4*>(a + first);
      const float4 bv = *reinterpret_cast<const float4*>(b + first);
      *reinterpret_cast<float4*>(out + first) =
          make_float4(av.x * gate(bv.x), av.y * gate(bv.y), av.z * gate(bv.z), av.w * gate(bv.w));
#elif VEC == 2
      const float2 av = *reinterpret_cast<const float2*>(a + first);
      const float2 bv = *reinterpret_cast<const float2*>(b + first);
      *reinterpret_cast<float2*>(out + first) = make_float2(av.x * gate(bv.x), av.y * gate(bv.y));
#else
      out[first] = a[first] * gate(b[first]);
#endif
    } else {
      const long long last = first + VEC < cols ? first + VEC : cols;
      for (long long j = first; j < last; ++j) out[j] = a[j] * gate(b[j]);
    }
  }
}
