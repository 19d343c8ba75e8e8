// Why outputs can be handed to a binding. A kernel whose operands fit in the caches runs at a speed that
// depends on where its buffers lie in physical memory, which the process does not choose. Two
// implementations each on their own buffers were so compared on their buffers as much as on their code
// (docs/code-figures.md).

#include <kbench/error.hpp>
#include <kbench/suite/kernel.hpp>

namespace kbench::suite {

buffer_ptr output_buffer(const kernel_args& args, std::size_t index, std::size_t bytes) {
  if (index >= args.outputs.size()) return args.device->allocate(bytes);
  const buffer_ptr& given = args.outputs[index];
  if (given == nullptr || given->size_bytes() < bytes) {
    KBENCH_THROW("output {} given to the binding holds {} bytes, the implementation writes {}", index,
                 given ? given->size_bytes() : 0, bytes);
  }
  return given;
}

}  // namespace kbench::suite
