// The reference of row_sum.cl: one work-item per row adds its values in order, in double precision.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void row_sum_reference(__global float* sums, __global const float* matrix, const int rows,
                                const int cols) {
  const int row = get_global_id(0);
  if (row >= rows) return;
  double sum = 0.0;
  for (int i = 0; i < cols; ++i) sum += matrix[(long)row * cols + i];
  sums[row] = (float)sum;
}
