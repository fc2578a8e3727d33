"""The class gateway (``agentlab gateway``): one instructor key on a server, a budget per student.

Students point their SDK at it (``ANTHROPIC_BASE_URL`` and the token it issued as ``ANTHROPIC_API_KEY``),
and every notebook runs unchanged. The rooms:

- ``store.py``: the ledger in SQLite: students, hashed tokens, budgets, one row per request.
- ``budget.py``: a request's worst case before it is sent, its cost after (the notebooks' prices).
- ``app.py``: the ASGI app: authenticate, rate-limit, reserve, forward, relay, settle.
- ``serve.py``: its upstream (Anthropic's API or the simulator) and uvicorn.
- ``upstream.py``: the transport to the API (aiohttp behind httpx2's interface), and which failed forwards
  can have reached it.
- ``cli.py``, ``plot.py``: the instructor's commands (``serve``, ``add``, ``spend``, ``budget``, ``revoke``, ``export``).

What crosses where: a student's request body goes upstream byte for byte with the instructor's key in
place of their token; the answer comes back byte for byte (a stream as it arrives). The key lives only
in the gateway's environment; the ledger holds no prompt and no answer unless the instructor serves with
``--log-bodies``.
"""
