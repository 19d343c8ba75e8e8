# kbench_embed_text(<out_var> <file> <symbol>)
# Generates a .cpp that defines `extern const char* const <symbol>` holding the text of <file> (an OpenCL C or
# CUDA source), so kernels ship inside the binary. The file is a configure dependency: editing it re-embeds.
function(kbench_embed_text out_var file symbol)
  get_filename_component(abs "${file}" ABSOLUTE)
  file(READ "${abs}" KBENCH_EMBED_TEXT)
  set(KBENCH_EMBED_SYMBOL "${symbol}")
  set(out "${CMAKE_BINARY_DIR}/embedded/${symbol}.cpp")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/embedded_text.cpp.in" "${out}" @ONLY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${abs}")
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
