// softmax_two_pass on the cpu backend: rows in tasks of GRAIN rows, taken by the workers from a shared
// counter (simd::for_tasks); two passes per row: pass 1 keeps a reference m near the running max (raised when
// a value exceeds it by more than 8) and a running sum of exp(x - m) (rescaled when m is raised) and stores
// the exps into y, pass 2 rescales y to exp(x - m) / sum
// (../common/cpu_row_softmax.hpp: vectors of W floats by the ISA parameter, UNROLL vectors per step of pass
// 1, a polynomial exp of ~1.5 ulp; STREAM = 1 keeps the exps in a per-thread row buffer and writes y once,
// with non-temporal stores).

#include "../common/cpu_row_softmax.hpp"
#include "softmax_two_pass.hpp"

namespace kbench::kernels {

launcher bind_softmax_two_pass_cpu(const kernel_args& args) {
  return cpu_row_softmax::bind_rows(args, "softmax_two_pass");
}

}  // namespace kbench::kernels
