"""Test-wide settings: offline, single-threaded numerics, headless plots."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

from llm_server import llm_server, llm_stub  # noqa: E402,F401  (LLM test servers, see tests/llm_server.py)
