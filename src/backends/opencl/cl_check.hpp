#pragma once
// Private to the opencl backend: OpenCL error codes as names, and the check that turns a failed call into a
// kbench::error naming the call ("clCreateBuffer failed: CL_INVALID_BUFFER_SIZE (-61)").

#include <CL/cl.h>

#include <string_view>

namespace kbench::opencl::detail {

/// "CL_INVALID_BUFFER_SIZE" for -61; "CL_UNKNOWN_ERROR" for a code that no OpenCL 1.2-3.0 header or common
/// extension defines.
[[nodiscard]] const char* error_name(cl_int code);

/// Throws kbench::error "<call> failed: <NAME> (<code>)" followed by `context` when `code` is not CL_SUCCESS.
void check(cl_int code, std::string_view call, std::string_view context = {});

}  // namespace kbench::opencl::detail
