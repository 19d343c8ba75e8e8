// low_mem_dropout on OpenCL: out[i] = keep(i) ? x[i] / (1 - P) : 0 over n float32 values, keep(i) from the
// counter-based hash of (seed, i) described in low_mem_dropout.hpp, in 32-bit unsigned arithmetic (which
// wraps mod 2^32 in OpenCL C, as in C++ and CUDA), so the mask is bit-identical to the other backends'.
// Config (build defines): WG = work-group size [work-items]; VEC = elements per work-item (1, 2, 4, 8 or 16),
// loaded, hashed and stored as vectors. Work-item i owns elements [i*VEC, i*VEC + VEC); the host launches
// ceil(ceil(n / VEC) / WG) * WG work-items, so the last vector may be partial (the tail, done element by
// element). The host guarantees n <= 2^32 so that element indices fit uint.

// The drop probability is a constant, not a config parameter (config values are integers); it must equal
// low_mem_dropout_p in low_mem_dropout.hpp.
#define DROPOUT_P 0.5f

// The stream: key = seed * 0x85EBCA6B; h = lowbias32(i * 0x9E3779B1 ^ key); keep = (h >> 8) * 2^-24 >= P.
#define LOWBIAS32(h)   \
  h ^= h >> 16;        \
  h *= 0x7FEB352Du;    \
  h ^= h >> 15;        \
  h *= 0x846CA68Bu;    \
  h ^= h >> 16

inline float dropout_one(float x, uint i, uint key) {
  uint h = (i * 0x9E3779B1u) ^ key;
  LOWBIAS32(h);
  const float u = (float)(h >> 8) * (1.0f / 16777216.0f);
  return u >= DROPOUT_P ? x / (1.0f - DROPOUT_P) : 0.0f;
}

#if VEC > 1
#define FLOATV KB_CAT(float, VEC)
#define UINTV KB_CAT(uint, VEC)
#if VEC == 2
#define LANES (uint2)(0, 1)
#elif VEC == 4
#define LANES (uint4)(0, 1, 2, 3)
#elif VEC == 8
#define LANES (uint8)(0, 1, 2, 3, 4, 5, 6, 7)
#else
#define LANES (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
#endif

// VEC consecutive elements starting at `first`: the same arithmetic lane by lane.
inline FLOATV dropout_vec(FLOATV x, uint first, uint key) {
  UINTV h = ((first + LANES) * 0x9E3779B1u) ^ key;
  LOWBIAS32(h);
  const FLOATV u = KB_CAT(convert_, FLOATV)(h >> 8) * (1.0f / 16777216.0f);
  // A vector comparison yields -1 (all bits set) where true; select takes its second operand there.
  return select((FLOATV)(0.0f), x / (1.0f - DROPOUT_P), u >= DROPOUT_P);
}
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void low_mem_dropout_kernel(
    __global const float* restrict x, __global const float* restrict seed, __global float* restrict y,
    const long n) {
  // seed[0] holds an exact integer below 2^24 (see low_mem_dropout.hpp).
  const uint key = (uint)seed[0] * 0x85EBCA6Bu;
  const long i = (long)get_global_id(0);
  const long first = i * VEC;
#if VEC == 1
  if (first < n) {
    y[first] = dropout_one(x[first], (uint)first, key);
  }
#else
  if (first + VEC <= n) {
    KB_CAT(vstore, VEC)(dropout_vec(KB_CAT(vload, VEC)(i, x), (uint)first, key), i, y);
  } else {
    for (long k = first; k < n; ++k) {
      y[k] = dropout_one(x[k], (uint)k, key);
    }
  }
#endif
}
