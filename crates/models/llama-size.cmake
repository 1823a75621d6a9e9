# Included by llama.cpp's CMake build after each project() (CMAKE_PROJECT_INCLUDE, set in
# .cargo/config.toml; llama-cpp-sys-2 passes every CMAKE_* variable through to CMake).
#
# libllama holds the graph builders and caches of some 150 model architectures, the
# quantizer, the model saver, LoRA adapters and the chat templates; ggml-base the reference
# quantizers of every type, the multi-device meta backend and the optimizer (training). cn
# runs one architecture (SmolLM2, `llama`) on one CPU and none of the tools, so that code is
# built for size (-Os). The files a decode step runs (context, batch, graph, KV cache,
# sampler, grammar, vocab, unicode), the model loader and ggml's graph, allocator, scheduler
# and CPU kernels keep the Release -O3. A Release build only; a debug build is as before.
#
# cmake-rs configures a build directory once: an existing target directory keeps the llama.cpp
# it built until that is rebuilt (`cargo clean -p llama-cpp-sys-2`); a fresh one gets this.
if(NOT PROJECT_NAME STREQUAL "llama.cpp" OR CMAKE_VERSION VERSION_LESS 3.19)
  return()
endif()

function(cn_llama_cold_for_size)
  if(TARGET llama)
    set(src "${CMAKE_SOURCE_DIR}/src")
    target_compile_options(llama PRIVATE $<$<CONFIG:Release>:-Os>)
    set(hot
      llama.cpp llama-batch.cpp llama-context.cpp llama-cparams.cpp llama-grammar.cpp
      llama-graph.cpp llama-hparams.cpp llama-impl.cpp llama-io.cpp llama-kv-cache.cpp
      llama-memory.cpp llama-mmap.cpp llama-model-loader.cpp llama-model.cpp
      llama-sampler.cpp llama-vocab.cpp unicode.cpp unicode-data.cpp)
    list(TRANSFORM hot PREPEND "${src}/")
    set_source_files_properties(${hot} DIRECTORY "${src}"
      PROPERTIES COMPILE_OPTIONS $<$<CONFIG:Release>:-O3>)
  endif()
  if(TARGET ggml-base)
    set(src "${CMAKE_SOURCE_DIR}/ggml/src")
    set(cold ggml-quants.c ggml-backend-meta.cpp ggml-opt.cpp)
    list(TRANSFORM cold PREPEND "${src}/")
    set_source_files_properties(${cold} DIRECTORY "${src}"
      PROPERTIES COMPILE_OPTIONS $<$<CONFIG:Release>:-Os>)
  endif()
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL cn_llama_cold_for_size)
