#!/bin/sh
# The reference for the local model's speed: llama.cpp's own llama-bench, built from the
# llama.cpp that the llama-cpp-sys-2 crate vendors (the code cn links), with the same ggml
# options (GGML_NATIVE=OFF, no OpenMP). The crate ships llama.cpp without its tools, so
# llama-bench's two source files come from the llama-cpp-python sdist (pip download).
# Then it runs llama-bench's `tg` at the depths that matter: an empty context (how "llama.cpp
# alone" figures are usually quoted) and 200 tokens (a level-2 plan's system prompt, tool
# docs and item), flash attention off and on, and `local_speed` right after.
# Usage: bench/llama_reference.sh [workdir] [path/to/local_speed]
set -eu
WORK=${1:-${TMPDIR:-/tmp}/cn-llama-reference}
SPEED=${2:-target/release/examples/local_speed}
MODEL=${CN_MODEL_PATH:-${XDG_CACHE_HOME:-$HOME/.cache}/cn/models/SmolLM2-135M-Instruct.Q4_1.gguf}
SYS=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/llama-cpp-sys-2-"$(grep -A1 '^name = "llama-cpp-sys-2"' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')" | head -1)
mkdir -p "$WORK"
if [ ! -x "$WORK/build/bin/llama-bench" ]; then
  rm -rf "$WORK/src" "$WORK/sdist"
  cp -r "$SYS/llama.cpp" "$WORK/src"
  mkdir -p "$WORK/sdist"
  (cd "$WORK/sdist" && pip download --no-deps --no-binary :all: llama-cpp-python > /dev/null && tar xzf llama_cpp_python-*.tar.gz)
  cp "$WORK"/sdist/llama_cpp_python-*/vendor/llama.cpp/tools/llama-bench/*.cpp "$WORK/sdist"/llama_cpp_python-*/vendor/llama.cpp/tools/llama-bench/CMakeLists.txt "$WORK/src/tools/llama-bench/"
  printf 'find_package(Threads REQUIRED)\nllama_add_compile_flags()\nadd_subdirectory(llama-bench)\n' > "$WORK/src/tools/CMakeLists.txt"
  cmake -S "$WORK/src" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DGGML_OPENMP=OFF \
    -DLLAMA_BUILD_APP=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF > "$WORK/cmake.log"
  cmake --build "$WORK/build" --target llama-bench -j2 > "$WORK/build.log"
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$WORK/build/bin/llama-bench" -m "$MODEL" -t 2 -p 0 -n 128 -d 0,200 -fa 0,1 -r 3 | grep tg
if [ -x "$SPEED" ]; then
  "$SPEED" 2 3
fi
