// low_mem_dropout on CUDA: out[i] = keep(i) ? x[i] / (1 - P) : 0 over n float32 values, keep(i) from the
// counter-based hash of (seed, i) described in low_mem_dropout.hpp, in 32-bit unsigned arithmetic (wrapping
// mod 2^32, as in C++ and OpenCL C), so the mask is bit-identical to the other backends'. Compiled at run
// time by NVRTC (its default -prec-div=true keeps the division correctly rounded).
// Config (build defines): BLOCK = threads per block; VEC = elements per thread per step (1, 2 or 4), loaded
// and stored as one float2/float4. Thread t of the grid owns [t*VEC, t*VEC + VEC), then strides by the whole
// grid (the host caps the grid); the last vector may be partial (the tail, done element by element). The host
// guarantees n <= 2^32 so that element indices fit unsigned int.

// The drop probability is a constant, not a config parameter (config values are integers); it must equal
// low_mem_dropout_p in low_mem_dropout.hpp.
#define DROPOUT_P 0.5f

// key = seed * 0x85EBCA6B; h = lowbias32(i * 0x9E3779B1 ^ key); keep = (h >> 8) * 2^-24 >= P.
__device__ __forceinline__ float dropout_one(float x, unsigned i, unsigned key) {
  unsigned h = (i * 0x9E3779B1u) ^ key;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  const float u = (float)(h >> 8) * (1.0f / 16777216.0f);
  return u >= DROPOUT_P ? x / (1.0f - DROPOUT_P) : 0.0f;
}

extern "C" __global__ void __launch_bounds__(BLOCK)
    low_mem_dropout_f32(const float* __restrict__ x, const float* __restrict__ seed, float* __restrict__ y,
                        long long n) {
  // seed[0] holds an exact integer below 2^24 (see low_mem_dropout.hpp).
  const unsigned key = (unsigned)seed[0] * 0x85EBCA6Bu;
  const long long stride = (long long)gridDim.x * BLOCK * VEC;
  for (long long i = ((long long)blockIdx.x * BLOCK + threadIdx.x) * VEC; i < n; i += stride) {
    const unsigned first = (unsigned)i;
    if (i + VEC <= n) {
      // i is a multiple of VEC and cuMemAlloc aligns to 256 bytes, so the vector accesses are aligned.
#if VEC == 4
      const float4 v = *reinterpret_cast<const float4*>(x + i);
      *reinterpret_cast<float4*>(y + i) =
          make_float4(dropout_one(v.x, first, key), dropout_one(v.y, first + 1, key),
                      dropout_one(v.z, first + 2, key), dropout_one(v.w, first + 3, key));
#elif VEC == 2
      const float2 v = *reinterpret_cast<const float2*>(x + i);
      *reinterpret_cast<float2*>(y + i) =
          make_float2(dropout_one(v.x, first, key), dropout_one(v.y, first + 1, key));
#else
      y[i] = dropout_one(x[i], first, key);
#endif
    } else {
      for (long long j = i; j < n; ++j) y[j] = dropout_one(x[j], (unsigned)j, key);
    }
  }
}
