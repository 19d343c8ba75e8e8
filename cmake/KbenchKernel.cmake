# kbench_add_kernel(<name> SOURCES <cpp...> [TORCH <cpp...>] [OPENCL <file.cl>] [CUDA <file.cu>])
# Adds one kernel folder to the build. SOURCES hold the registration and the cpu/opencl/cuda launch code;
# TORCH sources (the reference and baseline through ATen) go into the one target that sees libtorch headers;
# the OPENCL and CUDA sources are embedded as the strings kbench_<name>_opencl_source and
# kbench_<name>_cuda_source. A kernel folder's CMakeLists.txt calls this and nothing else.
function(kbench_add_kernel name)
  cmake_parse_arguments(K "" "OPENCL;CUDA" "SOURCES;TORCH" ${ARGN})
  set(sources)
  foreach(s IN LISTS K_SOURCES)
    list(APPEND sources "${CMAKE_CURRENT_SOURCE_DIR}/${s}")
  endforeach()
  if(K_OPENCL)
    kbench_embed_text(cl_cpp "${K_OPENCL}" "kbench_${name}_opencl_source")
    list(APPEND sources "${cl_cpp}")
  endif()
  if(K_CUDA)
    kbench_embed_text(cu_cpp "${K_CUDA}" "kbench_${name}_cuda_source")
    list(APPEND sources "${cu_cpp}")
  endif()
  target_sources(kbench_kernels PRIVATE ${sources})
  foreach(s IN LISTS K_TORCH)
    target_sources(kbench_torch PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/${s}")
  endforeach()
endfunction()
