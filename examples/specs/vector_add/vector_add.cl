// c = a + b over n float32 values; one work-item per element (Kernel Tuner's vector_add example).
__kernel void vector_add(__global float* c, __global const float* a, __global const float* b, const int n) {
  const int i = get_global_id(0);
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}
