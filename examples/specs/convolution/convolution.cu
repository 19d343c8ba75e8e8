// 2D convolution: output[y][x] = sum over i, j < FILTER of input[y + i][x + j] * filter[i][j], for an output
// of height x width and an input of (height + FILTER - 1) x (width + FILTER - 1), row-major.
// Each thread block computes a tile of (block_size_y * tile_size_y) x (block_size_x * tile_size_x) outputs
// (tile_size_* outputs per thread, block_size_* apart), from the part of the input it first stages in shared
// memory. block_size_x, block_size_y, tile_size_x and tile_size_y come as -D defines (the tuning parameters).
#define FILTER 7
#define TILE_W (block_size_x * tile_size_x)
#define TILE_H (block_size_y * tile_size_y)
#define STAGED_W (TILE_W + FILTER - 1)
#define STAGED_H (TILE_H + FILTER - 1)

extern "C" __global__ void convolution(float* output, const float* __restrict__ input,
                                       const float* __restrict__ filter, int height, int width) {
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int x0 = blockIdx.x * TILE_W;
  const int y0 = blockIdx.y * TILE_H;
  const int input_width = width + FILTER - 1;
  const int input_height = height + FILTER - 1;

  __shared__ float staged[STAGED_H][STAGED_W];
  for (int i = ty; i < STAGED_H; i += block_size_y) {
    for (int j = tx; j < STAGED_W; j += block_size_x) {
      const int y = y0 + i;
      const int x = x0 + j;
      staged[i][j] = (y < input_height && x < input_width) ? input[y * input_width + x] : 0.0f;
    }
  }
  __syncthreads();

  float sum[tile_size_y][tile_size_x];
#pragma unroll
  for (int yi = 0; yi < tile_size_y; ++yi) {
#pragma unroll
    for (int xi = 0; xi < tile_size_x; ++xi) sum[yi][xi] = 0.0f;
  }
  for (int i = 0; i < FILTER; ++i) {
    for (int j = 0; j < FILTER; ++j) {
      const float weight = filter[i * FILTER + j];
#pragma unroll
      for (int yi = 0; yi < tile_size_y; ++yi) {
#pragma unroll
        for (int xi = 0; xi < tile_size_x; ++xi) {
          sum[yi][xi] += staged[ty + yi * block_size_y + i][tx + xi * block_size_x + j] * weight;
        }
      }
    }
  }

#pragma unroll
  for (int yi = 0; yi < tile_size_y; ++yi) {
#pragma unroll
    for (int xi = 0; xi < tile_size_x; ++xi) {
      const int y = y0 + ty + yi * block_size_y;
      const int x = x0 + tx + xi * block_size_x;
      if (y < height && x < width) output[y * width + x] = sum[yi][xi];
    }
  }
}
