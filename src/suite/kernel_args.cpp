// Why outputs can be handed to a binding. A kernel whose operands fit in the caches runs at a speed that
// depends on where its buffers lie in physical memory, which the process does not choose: on this 2-cpu VM,
// add [512,512] (three 1 MiB operands, 2 OpenMP threads, huge-page aligned) took a median of 14.1 to 26.4
// us on eight sets of buffers in one process, each set the same from one pass to the next; with the inputs
// shared and only the output in a new place, 14.9 to 19.9 us. Two implementations each on their own
// buffers were so compared on their buffers as much as on their code: `kbench run` of that shape, 12
// processes, kbench / torch 0.73x to 1.58x (each process's interval within 1-2%); on the same buffers 1.00x
// to 1.53x, the high ends from processes in which torch ran slow throughout.

#include <kbench/error.hpp>
#include <kbench/suite/kernel.hpp>

namespace kbench {

buffer_ptr output_buffer(const kernel_args& args, std::size_t index, std::size_t bytes) {
  if (index >= args.outputs.size()) return args.device->allocate(bytes);
  const buffer_ptr& given = args.outputs[index];
  if (given == nullptr || given->size_bytes() < bytes) {
    KBENCH_THROW("output {} given to the binding holds {} bytes, the implementation writes {}", index,
                 given ? given->size_bytes() : 0, bytes);
  }
  return given;
}

}  // namespace kbench
