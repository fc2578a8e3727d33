"""Point third-party Anthropic clients (LangChain, pydantic-ai, litellm) at ``agentlab serve``, offline.

These libraries are not agentlab dependencies, so this is a script a person runs, not a test:

    pip install langchain-anthropic pydantic-ai-slim[anthropic] litellm   # any subset
    python scripts/third_party_clients.py                  # starts its own agentlab serve on loopback
    python scripts/third_party_clients.py --base-url http://127.0.0.1:8765   # or use a running one

For each client that imports, it sends a plain request, a streamed one (their default for several)
and a tool-call request, and prints what came back or the error. Tried on 2026-11-30 with
langchain-anthropic 1.7.10 (invoke, stream, bind_tools: ok), pydantic-ai-slim 2.68.0 (an agent with
a tool: ok) and litellm 1.110.2 (completion, stream=True: ok), each against ``agentlab serve``. A client missing is reported as
skipped. Only 127.0.0.1 is contacted; every call is bounded by a timeout.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
import traceback

MODEL = "claude-sonnet-5-5"
ASK = "Which is warmer, Paris or London?"


def get_weather(city: str) -> str:
    """Get today's temperature for a city."""
    return f'{{"city": "{city}", "temp_c": {dict(Paris=18, London=14).get(city, 10)}}}'


def try_langchain(base_url: str) -> str:
    from langchain_anthropic import ChatAnthropic

    llm = ChatAnthropic(model=MODEL, base_url=base_url, api_key="offline", max_tokens=300, timeout=30, max_retries=0)
    plain = llm.invoke("Hello").content
    streamed = "".join(str(c.content) for c in llm.stream("Hello"))
    call = llm.bind_tools([get_weather]).invoke(ASK)
    return f"invoke={plain!r}; stream={streamed!r}; tool_calls={[t['name'] for t in call.tool_calls]}"


def try_pydantic_ai(base_url: str) -> str:
    from pydantic_ai import Agent
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    model = AnthropicModel(MODEL, provider=AnthropicProvider(base_url=base_url, api_key="offline"))
    agent = Agent(model, tools=[get_weather])
    result = agent.run_sync(ASK)
    return f"run_sync={result.output!r}"


def try_litellm(base_url: str) -> str:
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no download of litellm's price list: offline
    import litellm

    plain = litellm.completion(
        model=f"anthropic/{MODEL}",
        messages=[{"role": "user", "content": "Hello"}],
        api_base=base_url,
        api_key="offline",
        max_tokens=100,
        timeout=30,
    )
    chunks = litellm.completion(
        model=f"anthropic/{MODEL}",
        messages=[{"role": "user", "content": "Hello"}],
        api_base=base_url,
        api_key="offline",
        max_tokens=100,
        stream=True,
        timeout=30,
    )
    streamed = "".join((c.choices[0].delta.content or "") for c in chunks)
    return f"completion={plain.choices[0].message.content!r}; stream={streamed!r}"


CLIENTS = {"langchain-anthropic": try_langchain, "pydantic-ai": try_pydantic_ai, "litellm": try_litellm}


def _start_server() -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentlab", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(300):  # up to 30 s
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("agentlab serve did not start")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base-url", help="a running agentlab serve (default: start one on a free loopback port)")
    args = p.parse_args()
    proc, base_url = (None, args.base_url) if args.base_url else _start_server()
    failed = 0
    try:
        for name, attempt in CLIENTS.items():
            try:
                print(f"{name}: ok: {attempt(base_url)}")
            except ImportError as e:
                print(f"{name}: skipped (not installed: {e.name})")
            except Exception as e:  # report every client, whatever breaks
                failed += 1
                print(f"{name}: FAILED: {type(e).__name__}: {e}")
                traceback.print_exc(limit=3)
    finally:
        if proc is not None:
            proc.kill()
            proc.wait(timeout=30)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
