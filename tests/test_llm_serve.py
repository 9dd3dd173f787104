"""``kari llm serve``: the documented recipe for a local OpenAI-compatible server, run as a user would."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_server import free_port
from typer.testing import CliRunner

from kari.cli import app
from kari.llm.localserver import is_ready, missing_server_reason


def test_missing_model_file_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kari.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["llm", "serve", "--model-file", str(tmp_path / "none.gguf")])
    assert exc.value.code == 2
    reason = missing_server_reason(tmp_path / "none.gguf")
    assert reason is not None and capsys.readouterr().err == f"kari: llm-server: {reason}\n"


def test_serve_help_documents_the_recipe() -> None:
    result = CliRunner().invoke(app, ["llm", "serve", "--help"])
    assert result.exit_code == 0 and "--concurrency" in result.output and "vLLM" in result.output


@pytest.mark.llm_server
def test_serve_answers_chat_and_stops_on_sigterm(llm_server: str, tmp_path: Path) -> None:
    # llm_server makes sure the server packages are installed (or fails under KARI_REQUIRE_LLM_SERVER=1).
    from kari.llm import LLMConfig, make_chat_client

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kari", "llm", "serve", "--port", str(port), "--threads", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while not is_ready(base_url):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.2)
        client = make_chat_client(LLMConfig(base_url=base_url, model="smollm2-135m-instruct", use_cache=False))
        reply = client.chat([{"role": "user", "content": "Name one metal."}], max_tokens=8)
        assert reply.text.strip() and reply.completion_tokens > 0
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert f"serving smollm2-135m-instruct at {base_url}" in out and "server stopped" in err
    assert not is_ready(base_url)
