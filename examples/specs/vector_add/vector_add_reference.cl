// The reference for vector_add: one work-item per element, written for clarity rather than speed.
__kernel void vector_add_reference(__global float* c, __global const float* a, __global const float* b) {
  const size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
