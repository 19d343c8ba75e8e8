# kbench_embed_text(<out_var> <files> <symbol>)
# Generates a .cpp that defines `extern const char* const <symbol>` holding the text of <files> (OpenCL C or
# CUDA sources) one after the other, so kernels ship inside the binary: a kernel's source can start with a
# prelude shared with others (kernels/common/*.cl, *.cu). The files are configure dependencies: editing one
# re-embeds.
function(kbench_embed_text out_var files symbol)
  set(KBENCH_EMBED_TEXT "")
  foreach(file IN LISTS files)
    get_filename_component(abs "${file}" ABSOLUTE)
    file(READ "${abs}" text)
    string(APPEND KBENCH_EMBED_TEXT "${text}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${abs}")
  endforeach()
  set(KBENCH_EMBED_SYMBOL "${symbol}")
  set(out "${CMAKE_BINARY_DIR}/embedded/${symbol}.cpp")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/embedded_text.cpp.in" "${out}" @ONLY)
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
