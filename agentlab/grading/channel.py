"""What crosses between a trusted graded test and the student's functions in their sandbox: JSON values only.

One JSON line per message over a pipe, never pickle. The test asks for a name of the student's module
(``get``) and calls it (``call``); the answer is a value. What may cross, either way:

- **data**: ``None``, bools, numbers, strings, lists, dicts, tuples, sets, bytes, paths, exceptions, and the
  dataclasses and pydantic models of the lab and the SDK (rebuilt field by field as the same class, if this
  side has imported it). Inside the sandbox every value is made plain first: a ``str`` subclass crosses as
  its characters, never as an object that claims to equal everything.
- **a function, as a handle**: the other side may call it with data and gets data back, nothing else (no
  attribute, item, ``len``, iteration or ``str`` of it). The trusted side hands over only the functions a
  test passes (a tool's function, a clock, a spy), and what they return must be data.
- **a client, as its API** (``"$": "A"``, ``agentlab.grading.api_pipe``): inside the sandbox the student's code
  gets a real ``anthropic.Anthropic`` whose HTTP transport writes each request to the pipe; the trusted side
  answers it through its own client, so its simulator, Meter and trace see every call the tests read.
- a few lab functions (``PORTABLE``) cross by name; each side runs its own copy.

Anything else fails that call with a reason the student reads. A list or dict the test passed stays linked
to its copy in the sandbox: each message from the sandbox carries the copies that changed since, so a
function that changes its argument in place (or a tool it built around it) is seen doing it, as under
``make grade``. A changed one that outlives its test (``Peer.outliving``: a module-level table, a ``@shared``
value) sends the next test to a fresh process (``agentlab.grading.runner``).
"""

from __future__ import annotations

import base64
import builtins
import dataclasses
import gc
import importlib
import json
import sys
import threading
from pathlib import Path, PurePath
from typing import Any, BinaryIO

from agentlab.grading import api_pipe

MAX_LINE = 32 << 20
"""Longest message accepted, in bytes."""
ALLOWED_CLASSES = ("agentlab.", "anthropic.", "pydantic.")
"""Modules whose dataclasses and pydantic models are rebuilt by value (only if this side imported them already)."""
PORTABLE = (
    "agentlab.api.tokens:text_tokens",
    "builtins:len",
    "agentlab.weather:get_weather.fn",
    "agentlab.experiments.booking:book_seat.fn",
    "agentlab.experiments.booking:free_seats.fn",
    "agentlab.experiments.booking:probe.fn",
)
"""Lab functions a test may hand the student's code: they cross by name, and each side calls its own copy (the
booking tools keep their state in the process that calls them, so they run beside each other in the sandbox)."""
_ONLY_HELD_HERE = 2
"""``sys.getrefcount`` of a container one of a ``Peer``'s dicts alone holds (the dict, and getrefcount's argument)."""


class ChannelClosed(RuntimeError):
    """The other side hung up (it exited, was killed, or broke the protocol)."""


class StudentProcessEnded(ChannelClosed):
    """The sandboxed process running the student's code ended (``os._exit``, a crash, out of memory)."""


class StaleHandle(RuntimeError):
    """A function handle used after the test it came from ended."""


class NotData(TypeError):
    """A value that cannot cross: neither data nor a function."""


class RemoteError(Exception):
    """An exception raised on the other side whose class is not rebuilt here; named like the original."""


class Remote:
    """A function of the other side's: calling it sends the arguments as data and returns the answer as data."""

    __slots__ = ("_peer", "_id", "__name__")

    def __init__(self, peer: Peer, ref: int, name: str) -> None:
        self._peer, self._id, self.__name__ = peer, ref, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._peer.call(self._id, args, kwargs)

    def __repr__(self) -> str:
        return f"<function {self.__name__} of the {'grader' if self._peer.side == 's' else 'sandbox'}>"


class Peer:
    """One end of the channel: ``side`` is ``"t"`` (the trusted test) or ``"s"`` (the sandbox).

    The sandbox's peer gets ``module``: name -> the student's module (imported on first use)."""

    token = ""
    """Trusted side: the current test's token; a ``gone`` message carrying it means the sandbox's process ended."""
    closed = False
    """True once the other side's end of the pipe closed."""
    ended = False
    """True once this peer's test is over: a handle it made can no longer be called."""

    def __init__(self, rfile: BinaryIO, wfile: BinaryIO, side: str, module=None) -> None:
        self.rfile, self.wfile, self.side, self.module = rfile, wfile, side, module
        self.handles: dict[int, Any] = {}  # this side's functions the other side may call, by id
        self.clients: dict[int, Any] = {}  # trusted: the clients a test passed, by id
        self.synced: dict[int, Any] = {}  # trusted: containers passed whose sandbox copies come back
        self.changed: set[int] = set()  # trusted: which of them the student's code changed
        self.mirrors: dict[int, Any] = {}  # sandbox: the copies of those containers
        self.mirrored: dict[int, str] = {}  # sandbox: each copy as last sent or received (only a change goes back)
        self.found: dict[tuple[str, str], Any] = {}  # trusted: the student's functions this test looked up
        self.lock = threading.RLock()

    # -- the trusted test's side --------------------------------------------------------------
    def get(self, module: str, name: str) -> Any:
        """``name`` of the student's module ``exercises.<module>``: a value, or a ``Remote`` for a function."""
        key = (module, name)
        if key not in self.found:
            value = self.request({"op": "get", "module": module, "name": name})
            if not isinstance(value, Remote):
                return value  # data is looked up again each time: the module may rebind it
            self.found[key] = value
        return self.found[key]

    def call(self, ref: int, args: tuple, kwargs: dict) -> Any:
        """Call the other side's function ``ref`` with these arguments; its answer (or its error, raised)."""
        mine = self.side == "t"  # the test may hand the student functions and clients; the sandbox only data
        return self.request(
            {
                "op": "call",
                "h": ref,
                "args": [self.encode(a, handles=mine, sync=mine) for a in args],
                "kwargs": {str(k): self.encode(v, handles=mine, sync=mine) for k, v in kwargs.items()},
            }
        )

    # -- values -------------------------------------------------------------------------------
    def encode(self, obj: Any, handles: bool = False, sync: bool = False) -> Any:
        """``obj`` as JSON. ``handles``: functions (and, on the trusted side, clients) cross as handles;
        without it they raise ``NotData``. ``sync``: a list or dict stays linked to its sandbox copy."""
        kind = type(obj)
        if obj is None or kind in (bool, str, int, float):
            return obj
        if isinstance(obj, str):
            return str.__str__(obj)
        if isinstance(obj, int):
            return int.__int__(obj)
        if isinstance(obj, float):
            return float.__float__(obj)
        if isinstance(obj, list) or isinstance(obj, dict):
            if kind in (list, dict) and _plain(obj):  # JSON as it stands: the json module writes it whole
                out: dict = {"$": "J", "v": obj}
            elif isinstance(obj, list):
                out = {"$": "L", "v": [self.encode(x, handles) for x in list.__iter__(obj)]}
            else:
                out = {"$": "D", "v": [[self.encode(k), self.encode(v, handles)] for k, v in dict.items(obj)]}
            if sync and self.side == "t" and kind in (list, dict):
                self.synced[id(obj)] = obj
                out["sync"] = id(obj)
            return out
        if isinstance(obj, (tuple, set, frozenset)):
            tag = "T" if isinstance(obj, tuple) else "F" if isinstance(obj, frozenset) else "S"
            items = tuple.__iter__(obj) if tag == "T" else frozenset.__iter__(obj) if tag == "F" else set.__iter__(obj)
            return {"$": tag, "v": [self.encode(x, handles) for x in items]}
        if isinstance(obj, (bytes, bytearray)):
            return {"$": "B", "v": base64.b64encode(bytes(obj)).decode()}
        if isinstance(obj, PurePath):
            return {"$": "P", "v": str(PurePath.__str__(obj))}
        if isinstance(obj, BaseException):
            return {"$": "E", "e": self.error(obj)}
        if isinstance(obj, Remote) and obj._peer is self:  # the other side's own function, handed back
            return {"$": "H", "mine": False, "id": obj._id, "n": obj.__name__}
        name = f"{kind.__module__}:{kind.__qualname__}"
        if _allowed_module(kind.__module__):
            if hasattr(obj, "model_dump") and hasattr(kind, "model_validate"):
                return {"$": "M", "c": name, "v": self.encode(obj.model_dump(mode="json", warnings=False))}
            if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
                fields = {f.name: self.encode(getattr(obj, f.name), handles) for f in dataclasses.fields(obj)}
                return {"$": "C", "c": name, "v": fields}
        if callable(obj) and (portable := _portable_name(obj)) is not None:
            return {"$": "N", "n": portable}
        if handles and self.side == "t" and api_pipe.is_client(obj):
            self.clients[id(obj)] = obj
            return {"$": "A", "id": id(obj), "base_url": str(obj.base_url), "max_retries": int(obj.max_retries)}
        if handles and callable(obj) and not isinstance(obj, type):
            self.handles[id(obj)] = obj
            return {"$": "H", "mine": True, "id": id(obj), "n": str(getattr(obj, "__name__", kind.__name__))[:80]}
        raise NotData(
            f"a value of type {kind.__name__} cannot cross between the grader and the sandbox: only data (lists, dicts, "
            f"strings, numbers, tuples, the lab's dataclasses) and functions do; return data"
        )

    def decode(self, data: Any) -> Any:
        if not isinstance(data, dict):
            if isinstance(data, list):
                raise ChannelClosed("a raw JSON list is not part of the protocol")
            return data
        tag, v = data.get("$"), data.get("v")
        if tag == "J":  # plain JSON, already rebuilt by json.loads (a "$" key inside is only data)
            out = v
        elif tag == "L":
            out = [self.decode(x) for x in v]
        elif tag == "D":
            out = {self.decode(k): self.decode(x) for k, x in v}
        elif tag in ("T", "S", "F"):
            return {"T": tuple, "S": set, "F": frozenset}[tag](self.decode(x) for x in v)
        elif tag == "B":
            return base64.b64decode(v)
        elif tag == "P":
            return Path(v)
        elif tag == "M":
            cls, value = _loaded_class(data.get("c")), self.decode(v)
            if cls is None or not hasattr(cls, "model_validate"):
                return value
            try:
                return cls.model_validate(value)
            except Exception:  # noqa: BLE001 - e.g. a model the SDK builds without validation
                return cls.model_construct(**value) if isinstance(value, dict) else value
        elif tag == "C":
            cls, fields = _loaded_class(data.get("c")), {str(k): self.decode(x) for k, x in dict(v).items()}
            if cls is None or not dataclasses.is_dataclass(cls):
                return fields
            obj = object.__new__(cls)
            for field in dataclasses.fields(cls):
                if field.name in fields:
                    object.__setattr__(obj, field.name, fields[field.name])
                elif field.default is not dataclasses.MISSING:
                    object.__setattr__(obj, field.name, field.default)
            return obj
        elif tag == "E":
            return self.exception(data.get("e") or {})
        elif tag == "N":  # this side's own copy, as imported at start (never whatever stands at that name now)
            fn = next((fn for fn, name in _PORTABLE_FUNCTIONS if name == data.get("n")), None)
            if fn is None:
                raise ChannelClosed(f"{str(data.get('n'))[:80]!r} is not a function that crosses by name here")
            return fn
        elif tag == "H":
            if data.get("mine") is False:  # one of ours, handed back
                return self.handles[int(data["id"])]
            if self.side == "t" and self.ended:
                raise StaleHandle("a function of the student's from an earlier test")
            return Remote(self, int(data["id"]), str(data.get("n", "function"))[:80])
        elif tag == "A":
            if self.side != "s":
                raise ChannelClosed("a client crosses only into the sandbox")
            return api_pipe.sandbox_client(self, int(data["id"]), str(data["base_url"]), int(data["max_retries"]))
        else:
            raise ChannelClosed(f"unknown value tag {tag!r}")
        if "sync" in data and self.side == "s":
            self.mirrors[int(data["sync"])] = out
            self.mirrored[int(data["sync"])] = json.dumps(self.encode(out, handles=True), ensure_ascii=False)
        return out

    def error(self, e: BaseException) -> dict:
        cls = type(e)
        return {
            "type": cls.__name__,
            "module": cls.__module__,
            "message": str(e)[:20000],
            "args": [a if isinstance(a, (str, int, float, bool)) or a is None else str(a) for a in e.args][:8],
            "status": status if isinstance(status := getattr(e, "status_code", None), int) else None,
        }

    def exception(self, info: dict) -> BaseException:
        name, module = str(info.get("type", "Exception")), str(info.get("module", ""))
        message = str(info.get("message", ""))
        builtin = getattr(builtins, name, None) if module == "builtins" else None
        if isinstance(builtin, type) and issubclass(builtin, Exception):
            try:
                return builtin(*info.get("args", [message]))
            except Exception:  # noqa: BLE001
                return builtin(message)
        cls = _loaded_class(f"{module}:{name}")
        if cls is not None and issubclass(cls, Exception):
            try:
                if isinstance(info.get("status"), int):  # the SDK's status errors: rebuilt around a bare response
                    import httpx2

                    request = httpx2.Request("POST", "https://the-grader/v1/messages")
                    return cls(message, response=httpx2.Response(info["status"], request=request), body=None)
                return cls(message)
            except Exception:  # noqa: BLE001 - e.g. the SDK's errors need a response object
                pass
        return type(name, (RemoteError,), {"__module__": "remote"})(message)

    # -- messages -----------------------------------------------------------------------------
    def send(self, message: dict) -> None:
        if self.side == "s" and self.mirrors:
            changed = {}
            for k in list(self.mirrors):
                # counted before encoding: an encoded plain value refers to the copy itself
                last = sys.getrefcount(self.mirrors[k]) <= _ONLY_HELD_HERE  # nothing in the sandbox holds it
                try:
                    value = self.encode(self.mirrors[k], handles=True)
                except NotData:  # the student put an object in it: the test sees the copy as it last crossed
                    value = None
                text = json.dumps(value, ensure_ascii=False)
                if value is not None and text != self.mirrored.get(k):
                    changed[str(k)], self.mirrored[k] = value, text
                if last:  # it cannot change again
                    del self.mirrors[k], self.mirrored[k]
            if changed:
                message["sync"] = changed
        data = json.dumps(message, ensure_ascii=False, allow_nan=True).encode() + b"\n"
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except (OSError, ValueError) as e:
            raise ChannelClosed(f"the other side hung up ({e})") from e

    def receive(self) -> dict:
        line = self.rfile.readline(MAX_LINE + 1)
        if not line:
            self.closed = True
        if not line or len(line) > MAX_LINE or not line.endswith(b"\n"):
            raise ChannelClosed("the other side hung up" if not line else "a message was too long")
        try:
            message = json.loads(line)
        except ValueError as e:
            raise ChannelClosed(f"not a protocol message: {e}") from e
        if not isinstance(message, dict):
            raise ChannelClosed("not a protocol message")
        if self.side == "t" and isinstance(message.get("sync"), dict):
            for key, value in message["sync"].items():
                target = self.synced.get(int(key)) if str(key).isascii() and str(key).isdigit() else None
                new = self.decode(value)
                if type(target) is list and type(new) is list:
                    target[:] = new
                elif type(target) is dict and type(new) is dict:
                    target.clear()
                    target.update(new)
                else:
                    continue
                self.changed.add(id(target))
        return message

    def busy(self) -> bool:
        """Trusted side: whether a thread is still inside a request, waiting on the other side (e.g. a tool the
        executor gave up on): it would read what the channel carries next."""
        if not self.lock.acquire(blocking=False):
            return True
        self.lock.release()
        return False

    def outliving(self) -> list:
        """Trusted side, once the test is over: the containers the student's code changed that something besides
        this peer still holds (a module-level table, a ``@shared`` value, a fixture's); [] if none. The runner
        runs the next test in a fresh process when there are any."""
        if not self.changed:
            return []
        gc.collect()  # a cycle of the test's own that is garbage holds nothing
        return [self.synced[k] for k in self.changed if sys.getrefcount(self.synced[k]) > _ONLY_HELD_HERE]

    def end(self, seconds: float = 3.0) -> bool:
        """Trusted side: tell the sandbox the test is over and wait (at most ``seconds``) until it stopped reading;
        False if it did not say so in time (or hung up first)."""
        import signal

        def stop(*_):
            raise ChannelClosed("the sandbox did not acknowledge the end of the test")

        self.ended = True
        old = signal.signal(signal.SIGALRM, stop)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            self.send({"k": "end"})
            while self.receive().get("k") not in ("ended", "gone"):  # bounded by the alarm above
                pass
            return True
        except Exception:  # noqa: BLE001 - hung up, timed out, or sent what is not a message: not acknowledged
            return False
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)

    def request(self, message: dict) -> Any:
        """Send a request; serve the other side's requests until its answer comes; return or raise it."""
        if self.ended:
            raise StaleHandle(
                "this function came from an earlier test, which has ended: keep nothing a test hands "
                "your code (a client, a tool, a callback) for a later test; use the one that test passes"
            )
        with self.lock:
            self.send({"k": "req", **message})
            return self.serve(until_answer=True)

    def serve(self, until_answer: bool = False) -> Any:
        while True:  # one message a round; ends with the answer, an "end", or ChannelClosed when the other side
            # hangs up (the trusted side runs under its test's time limit, which ends the sandbox's side too)
            message = self.receive()
            kind = message.get("k")
            if kind == "ok" and until_answer:
                return self.decode(message.get("v"))
            if kind == "err" and until_answer:
                raise self.exception(message.get("e") or {})
            if kind == "gone" and self.side == "t":
                if message.get("token") == self.token:
                    raise StudentProcessEnded(f"the student's code {str(message.get('why'))[:200]} before it returned")
                continue
            if kind == "end" and not until_answer:
                self.send({"k": "ended"})  # nothing after "end" was read: the next test's start stays in the pipe
                return None
            if kind != "req":
                raise ChannelClosed(f"unexpected message {kind!r}")
            try:
                value = self._handle(message)
                self.send({"k": "ok", "v": self.encode(value, handles=self.side == "s")})
            except ChannelClosed:
                raise
            except BaseException as e:  # noqa: BLE001 - the error goes back to the caller
                if isinstance(e, (KeyboardInterrupt, SystemExit)) and self.side == "t":
                    raise
                self.send({"k": "err", "e": self.error(e)})

    def _handle(self, message: dict) -> Any:
        op = message.get("op")
        if op == "get" and self.side == "s":
            return getattr(self.module(str(message.get("module"))), str(message.get("name")))
        if op == "http" and self.side == "t":
            client = self.clients.get(int(message.get("h", 0)))
            if client is None:
                raise PermissionError("no client of this test has that number")
            return api_pipe.answer(client, message.get("http") or {})
        if op == "call":
            fn = self.handles.get(int(message.get("h", 0)))
            if fn is None:
                raise PermissionError("no function of this test has that number")
            args = [self.decode(a) for a in message.get("args", [])]
            kwargs = {str(k): self.decode(v) for k, v in dict(message.get("kwargs", {})).items()}
            return fn(*args, **kwargs)
        raise PermissionError(f"operation {op!r} is not allowed on this side")


# -- functions that cross by name, classes rebuilt by value ----------------------------------------
_PORTABLE_FUNCTIONS: list[tuple[Any, str]] = []


def _portable_name(obj: Any) -> str | None:
    """The ``PORTABLE`` name of ``obj`` if it is one of those functions itself (a test's spy wrapping one is not)."""
    return next((name for fn, name in _PORTABLE_FUNCTIONS if fn is obj), None)


def _loaded_class(name: Any) -> type | None:
    """The lab's or the SDK's class ``module:qualname``, if this side has imported its module (none is imported
    here for the other side)."""
    module, _, qualname = str(name).partition(":")
    obj: Any = sys.modules.get(module) if _allowed_module(module) else None
    for part in qualname.split(".") if obj is not None else ():  # what is defined there: no module __getattr__ runs
        obj = vars(obj).get(part) if hasattr(obj, "__dict__") else None
    return obj if isinstance(obj, type) and _allowed_module(obj.__module__) else None  # not a class imported there


def _allowed_module(module: str) -> bool:
    return module.startswith(ALLOWED_CLASSES) or module + "." in ALLOWED_CLASSES


_PLAIN_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(obj: Any) -> bool:
    """Whether ``obj`` is JSON exactly as the json module reads it back: lists, dicts with ``str`` keys, and
    ``str``, ``int``, ``float``, ``bool``, ``None`` (exact types: a subclass, a tuple or an int key is not)."""
    kind = type(obj)
    if kind in _PLAIN_SCALARS:
        return True
    if kind is list:
        for x in obj:
            if type(x) not in _PLAIN_SCALARS and not _plain(x):
                return False
        return True
    if kind is dict:
        for k, x in obj.items():
            if type(k) is not str or (type(x) not in _PLAIN_SCALARS and not _plain(x)):
                return False
        return True
    return False


def _function(name: str) -> Any:
    module, _, path = name.partition(":")
    obj: Any = importlib.import_module(module)
    for attr in path.split("."):
        obj = getattr(obj, attr)
    return obj


for _entry in PORTABLE:  # looked up once, when this module is imported (before any test could patch one)
    try:
        _PORTABLE_FUNCTIONS.append((_function(_entry), _entry))
    except (ImportError, AttributeError):  # a course without the simulator or the weather tool
        continue
