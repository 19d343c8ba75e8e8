// The reference of convolution.cl: one work-item per output, straight from the input, summing in the same
// order (i, then j).
#define FILTER 7

__kernel void convolution_reference(__global float* output, __global const float* input,
                                    __global const float* filter, const int height, const int width) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= width || y >= height) return;
  const int input_width = width + FILTER - 1;
  float sum = 0.0f;
  for (int i = 0; i < FILTER; ++i) {
    for (int j = 0; j < FILTER; ++j) sum += input[(y + i) * input_width + x + j] * filter[i * FILTER + j];
  }
  output[y * width + x] = sum;
}
