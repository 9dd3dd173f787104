"""Stand-in: one OpenAI-compatible client per server, one chat call per request."""
import os

from openai import OpenAI

_CLIENTS = {}


def _get_client():
    key = (os.environ.get("VLLM_API_KEY", "EMPTY"), os.environ.get("VLLM_BASE_URL", "http://localhost:8000/v1"))
    if key not in _CLIENTS:
        _CLIENTS[key] = OpenAI(api_key=key[0], base_url=key[1])
    return _CLIENTS[key]


def call_model(model, messages, temperature=0.0, max_tokens=1536):
    response = _get_client().chat.completions.create(model=model, messages=messages, temperature=temperature,
                                                     timeout=90, max_tokens=max_tokens)
    return response.choices[0].message.content
