"""A live stand-in for the tests: the simulator behind a transport that strips its own headers (as a
proxy in front of ``agentlab serve`` would), so the client sees what the real API sends."""

import httpx2

from agentlab.sim.server import Simulator


def strip_sim_headers(handler):
    """Wrap a request handler: answers lose every ``agentlab-*`` header; requests are kept for checks."""
    seen = []

    def handle(request):
        seen.append(request)
        response = handler(request)
        headers = [(k, v) for k, v in response.headers.multi_items() if not k.lower().startswith("agentlab-")]
        return httpx2.Response(response.status_code, headers=headers, content=response.read())

    handle.seen = seen
    return handle


def standin(**sim_options):
    """A transport answering like the API (no simulator headers), and the list of requests it saw."""
    handle = strip_sim_headers(Simulator(**sim_options).handle)
    return httpx2.MockTransport(handle), handle.seen


def forward_to(base_url):
    """A request handler that sends each request on to ``base_url`` (a running ``agentlab serve``) and
    returns its answer: with :func:`serve_standin`, a header-stripping proxy in front of the real server."""
    client = httpx2.Client(base_url=base_url, timeout=60)

    def handle(request):
        target = request.url.raw_path.decode()
        headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() not in ("host", "content-length")]
        return client.request(request.method, target, headers=headers, content=request.content)

    return handle


def serve_standin(sim=None, handler=None):
    """The simulator over real HTTP on 127.0.0.1 (port 0: a free one), answering without its own headers,
    as ``agentlab serve`` behind a header-stripping proxy would (``handler=forward_to(url)``: that proxy,
    in front of a real ``agentlab serve``). Returns ``(base_url, stop)``; ``stop.seen`` lists every
    request it answered."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    handle = strip_sim_headers(handler or (sim or Simulator()).handle)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out as two writes: without it each answer waits ~40 ms

        def _answer(self):
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            request = httpx2.Request(
                self.command, f"http://127.0.0.1{self.path}", headers=dict(self.headers), content=body
            )
            response = handle(request)
            payload = response.read()
            self.send_response(response.status_code)
            for k, v in response.headers.items():
                if k.lower() not in ("content-length", "transfer-encoding", "connection", "content-encoding"):
                    self.send_header(k, v)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_POST = do_GET = _answer

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def stop():
        server.shutdown()
        server.server_close()

    stop.seen = handle.seen
    return f"http://127.0.0.1:{server.server_address[1]}", stop
