// The reference of convolution.cu: one thread per output, straight from the input, summing in the same
// order (i, then j).
#define FILTER 7

extern "C" __global__ void convolution_reference(float* output, const float* input, const float* filter,
                                                 int height, int width) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const int input_width = width + FILTER - 1;
  float sum = 0.0f;
  for (int i = 0; i < FILTER; ++i) {
    for (int j = 0; j < FILTER; ++j) sum += input[(y + i) * input_width + x + j] * filter[i * FILTER + j];
  }
  output[y * width + x] = sum;
}
