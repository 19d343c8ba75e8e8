// The reference of row_sum.cu: one thread per row adds its values in order, in double precision.
extern "C" __global__ void row_sum_reference(float* sums, const float* matrix, int rows, int cols) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  double sum = 0.0;
  for (int i = 0; i < cols; ++i) sum += matrix[static_cast<long long>(row) * cols + i];
  sums[row] = static_cast<float>(sum);
}
