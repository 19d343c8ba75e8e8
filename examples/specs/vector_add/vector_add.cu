// c = a + b over n float32 values; one thread per element (Kernel Tuner's vector_add example).
extern "C" __global__ void vector_add(float* c, const float* a, const float* b, int n) {
  const int i = blockIdx.x * block_size_x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}
