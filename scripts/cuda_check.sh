#!/usr/bin/env bash
# Builds the CUDA generation path (`--features cuda`) without a GPU: nvcc, headers and libraries
# from PyPI's NVIDIA wheels (CUDA 13) in a venv, kernels compiled for the lab's T4s (sm_75).
#   bash scripts/cuda_check.sh [--build]    (default: cargo check; --build links the mitra binary)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${MITRA_CUDA_VENV:-$HOME/.cache/mitra-cuda-venv}"
if [ ! -x "$VENV/lib/python3.11/site-packages/nvidia/cu13/bin/nvcc" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "nvidia-cuda-nvcc==13.0.88" "nvidia-nvvm==13.0.*" "nvidia-cuda-crt==13.0.*" "nvidia-cuda-runtime==13.0.*" \
    "nvidia-cublas==13.0.*" "nvidia-curand==10.4.0.*" "nvidia-cuda-cccl==13.0.*"
fi
CUDA="$VENV/lib/python3.11/site-packages/nvidia/cu13"
export CUDA_PATH="$CUDA" CUDA_ROOT="$CUDA" CUDA_TOOLKIT_ROOT_DIR="$CUDA"
export PATH="$CUDA/bin:$PATH"
export LIBRARY_PATH="$CUDA/lib:${LIBRARY_PATH:-}" LD_LIBRARY_PATH="$CUDA/lib:${LD_LIBRARY_PATH:-}"
export CUDA_COMPUTE_CAP="${CUDA_COMPUTE_CAP:-75}"
export CARGO_TARGET_DIR="${MITRA_CUDA_TARGET:-$HOME/.cache/mitra-target-cuda}"
nvcc --version | tail -1
if [ "${1:-}" = "--build" ]; then
  cargo build --locked --features cuda --bin mitra
else
  cargo check --locked -p mitra-llm --features cuda
fi
