"""The narrow interface between a trusted graded test and the student's functions in their sandbox.

One JSON line per message over a pipe, never pickle. Values cross by value when they are data:
``None``, bools, numbers, strings, lists, dicts, tuples, sets, bytes, paths, pydantic models and
dataclasses of the lab or the SDK (rebuilt as the same class on the other side); a few pure functions
(``PORTABLE``: a token counter or the weather lookup a test hands the student's code) cross by name.
Anything else (a simulated client, a student's function) crosses as a numbered *reference*: the other side gets a
``Proxy`` whose attribute reads, calls, indexing, ``len`` and iteration travel back to the owner.

What the trusted side allows a reference to do is narrow: no attribute starting with ``_`` (no
``__globals__``, ``__class__``, ...), no writes, no modules or classes handed out; so the student's
code can use the simulated client it was given and nothing else of the process that decides.
A ``Proxy`` of a student's object has no ``==`` of its own (it compares by identity), so an object
that claims to equal everything earns nothing.

Lists and dicts passed as top-level arguments stay linked to their copy in the sandbox: whenever the
copy changes (during the call, or later, e.g. in a tool the student's function built around it),
the next message from the sandbox carries it back, so a student function that changes its argument
in place is seen doing it (and a test that checks "the input is untouched" still can). Only a
change goes back: what the test itself changes afterwards is never overwritten by a stale copy.
"""

from __future__ import annotations

import base64
import builtins
import dataclasses
import importlib
import json
import sys
import threading
from pathlib import Path, PurePath
from typing import Any, BinaryIO

MAX_LINE = 32 << 20
"""Longest message accepted, in bytes."""
ALLOWED_CLASSES = ("agentlab.", "anthropic.", "pydantic.")
"""Modules whose dataclasses and pydantic models are rebuilt by value."""
PORTABLE = ("agentlab.api.tokens:text_tokens", "builtins:len", "agentlab.weather:get_weather.fn")
"""Pure functions a test may hand the student's code (a token counter, the weather lookup): they cross by
name, and each side calls its own copy, with no round trip and nothing run in the trusted process for the student."""
_ONLY_HELD_HERE = 2
"""``sys.getrefcount`` of a copy held by ``Peer.mirrors`` alone (the dict, and getrefcount's argument)."""


class RemoteError(Exception):
    """An exception raised on the other side whose class is not rebuilt here; named like the original."""


class ChannelClosed(RuntimeError):
    """The other side hung up (it exited, was killed, or broke the protocol)."""


class StaleReference(RuntimeError):
    """A reference used after the test it came from ended (the student's code kept it in a global)."""


class StudentProcessEnded(ChannelClosed):
    """The sandboxed process running the student's code ended (``os._exit``, a crash, out of memory)."""


class Proxy:
    """Stands for an object living on the other side; every use is one round trip."""

    __slots__ = ("_peer", "_side", "_id", "_name")

    def __init__(self, peer: Peer, side: str, ref: int, name: str) -> None:
        object.__setattr__(self, "_peer", peer)
        object.__setattr__(self, "_side", side)
        object.__setattr__(self, "_id", ref)
        object.__setattr__(self, "_name", name)

    def _ask(self, op: str, *args: Any) -> Any:
        return self._peer.request({"op": op, "ref": self._id, "args": [self._peer.encode(a) for a in args]})

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._ask("getattr", name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        peer = self._peer
        return peer.request(
            {
                "op": "call",
                "ref": self._id,
                "args": [peer.encode(a, sync=True) for a in args],
                "kwargs": {k: peer.encode(v, sync=True) for k, v in kwargs.items()},
            }
        )

    def __getitem__(self, key: Any) -> Any:
        return self._ask("getitem", key)

    def __len__(self) -> int:
        n = self._ask("len")
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError("len() of a remote object did not return an int")
        return n

    def __iter__(self):
        items = self._ask("list")
        if not isinstance(items, list):
            raise TypeError("iterating a remote object did not give a list")
        return iter(items)

    def __contains__(self, item: Any) -> bool:
        return bool(self._ask("contains", item) is True)

    def __bool__(self) -> bool:
        return self._ask("bool") is True

    def __str__(self) -> str:
        text = self._ask("str")
        return text if isinstance(text, str) else "<remote object>"

    def __repr__(self) -> str:
        return f"<{self._name} from the {'sandbox' if self._side == 's' else 'grader'}>"


class Peer:
    """One end of the channel. ``side`` is ``"t"`` (trusted) or ``"s"`` (sandbox)."""

    token = ""
    closed = False
    """True once the other side's end of the pipe closed (the sandbox is gone; the worker starts a new one)."""
    """Trusted side: the current test's token; a ``gone`` message carrying it means the sandbox's process ended."""
    ended = False
    """Sandbox side: True once this peer's test is over; its references can no longer be used."""
    touched = False
    """Trusted side: True once the other side may have changed this process's state: it made a request here,
    changed a synced container, or named a lab or SDK class whose module was not imported yet
    (``agentlab.grading.runner`` then runs the next test in a fresh process)."""

    def __init__(self, rfile: BinaryIO, wfile: BinaryIO, side: str, handler=None) -> None:
        self.rfile, self.wfile, self.side, self.other = rfile, wfile, side, ("s" if side == "t" else "t")
        self.objects: dict[int, Any] = {}
        self.synced: dict[int, Any] = {}  # trusted: containers sent that the sandbox copies back
        self.mirrors: dict[int, Any] = {}  # sandbox: the copies of those containers
        self.mirrored: dict[int, str] = {}  # sandbox: each copy as last sent or received (only a change goes back)
        self.handler = handler  # sandbox: handles {"op": "module_call", ...}
        self.module_refs: dict[tuple[str, str], Proxy] = {}  # trusted: the student's functions this test looked up
        self.lock = threading.RLock()

    # -- values -------------------------------------------------------------------------------
    def encode(self, obj: Any, sync: bool = False) -> Any:
        if obj is None or isinstance(obj, (bool, str)) or type(obj) in (int, float):
            return obj
        if isinstance(obj, Proxy) and obj._peer is self:
            return {"$": "R", "side": obj._side, "id": obj._id, "n": obj._name}
        if type(obj) in (list, dict):
            if _plain(obj):  # JSON as it stands (most arguments and answers): the json module writes it whole
                out: dict = {"$": "J", "v": obj}
            else:
                out = (
                    {"$": "L", "v": [self.encode(x) for x in obj]}
                    if type(obj) is list
                    else {"$": "D", "v": [[self.encode(k), self.encode(v)] for k, v in obj.items()]}
                )
            if sync and self.side == "t":
                self.synced[id(obj)] = obj
                out["sync"] = id(obj)
            return out
        if type(obj) in (tuple, set, frozenset):
            return {"$": {tuple: "T", set: "S", frozenset: "F"}[type(obj)], "v": [self.encode(x) for x in obj]}
        if isinstance(obj, (bytes, bytearray)):
            return {"$": "B", "v": base64.b64encode(bytes(obj)).decode()}
        if isinstance(obj, PurePath):
            return {"$": "P", "v": str(obj)}
        cls = type(obj)
        name = f"{cls.__module__}:{cls.__qualname__}"
        if cls.__module__.startswith(ALLOWED_CLASSES):
            if hasattr(obj, "model_dump") and hasattr(cls, "model_validate"):
                return {"$": "M", "c": name, "v": self.encode(obj.model_dump(mode="json", warnings=False))}
            if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
                return {
                    "$": "C",
                    "c": name,
                    "v": {f.name: self.encode(getattr(obj, f.name)) for f in dataclasses.fields(obj)},
                }
        if isinstance(obj, BaseException):
            return {"$": "E", "e": self.error(obj)}
        if callable(obj) and (name := _portable_name(obj)) is not None:
            return {"$": "N", "n": name}
        if self.side == "t" and (isinstance(obj, type) or type(obj).__name__ == "module"):
            return {"$": "X", "n": cls.__name__}  # never a handle on the grader's classes or modules
        self.objects[id(obj)] = obj
        return {"$": "R", "side": self.side, "id": id(obj), "n": cls.__name__}

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
            cls = self._allowed(data["c"])
            value = self.decode(v)
            if cls is None:
                return value
            try:
                return cls.model_validate(value)
            except Exception:  # noqa: BLE001 - e.g. a model the SDK builds without validation
                return cls.model_construct(**value)
        elif tag == "C":
            cls = self._allowed(data["c"])
            fields = {k: self.decode(x) for k, x in v.items()}
            if cls is None or not dataclasses.is_dataclass(cls):
                return fields
            obj = object.__new__(cls)
            for k, x in fields.items():
                object.__setattr__(obj, k, x)
            return obj
        elif tag == "E":
            return self.exception(data["e"])
        elif tag == "X":
            return None
        elif tag == "N":  # this side's own copy, as imported at start (never whatever stands at that name now)
            fn = next((fn for fn, name in _PORTABLE_FUNCTIONS if name == data.get("n")), None)
            if fn is None:
                raise ChannelClosed(f"{str(data.get('n'))[:80]!r} is not a function that crosses by name here")
            return fn
        elif tag == "R":
            if data.get("side") == self.side:
                return self.objects[int(data["id"])]
            return Proxy(self, self.other, int(data["id"]), str(data.get("n", "object"))[:80])
        else:
            raise ChannelClosed(f"unknown value tag {tag!r}")
        if "sync" in data and self.side == "s":
            self.mirrors[int(data["sync"])] = out
            self.mirrored[int(data["sync"])] = json.dumps(self.encode(out), ensure_ascii=False)
        return out

    def _allowed(self, name: str) -> type | None:
        if str(name).partition(":")[0] not in sys.modules:
            self.touched = True  # rebuilding it imports a module here
        return _allowed_class(name)

    def error(self, e: BaseException) -> dict:
        cls = type(e)
        return {
            "type": cls.__name__,
            "module": cls.__module__,
            "message": str(e)[:20000],
            "args": [a if isinstance(a, (str, int, float, bool)) or a is None else str(a) for a in e.args][:8],
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
        cls = self._allowed(f"{module}:{name}")
        if cls is not None and issubclass(cls, Exception):
            try:
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
                value = self.encode(self.mirrors[k])
                text = json.dumps(value, ensure_ascii=False)
                if text != self.mirrored.get(k):
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
            self._apply_sync(message["sync"])
        return message

    def _apply_sync(self, sync: dict) -> None:
        self.touched = True
        for key, value in sync.items():
            target = self.synced.get(int(key)) if str(key).isdigit() else None
            new = self.decode(value)
            if type(target) is list and type(new) is list:
                target[:] = new
            elif type(target) is dict and type(new) is dict:
                target.clear()
                target.update(new)

    def end(self, seconds: float = 3.0) -> bool:
        """Trusted side: tell the sandbox the test is over and wait (at most ``seconds``) until it stopped reading;
        False if it did not say so in time (or hung up first)."""
        import signal

        def stop(*_):
            raise ChannelClosed("the sandbox did not acknowledge the end of the test")

        old = signal.signal(signal.SIGALRM, stop)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            self.send({"k": "end"})
            while self.receive().get("k") not in ("ended", "gone"):
                pass
            return True
        except ChannelClosed:
            return False
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)

    def request(self, message: dict) -> Any:
        """Send a request; serve the other side's requests until its answer comes; return or raise it."""
        if self.ended:
            raise StaleReference(
                "this object came from an earlier test, which has ended: keep nothing a test hands "
                "your code (a client, a callback) for a later test; use the one that test passes"
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
            if self.side == "t":
                self.touched = True
            try:
                value = self._handle(message)
                self.send({"k": "ok", "v": self.encode(value)})
            except ChannelClosed:
                raise
            except BaseException as e:  # noqa: BLE001 - the error goes back to the caller
                if isinstance(e, (KeyboardInterrupt, SystemExit)) and self.side == "t":
                    raise
                self.send({"k": "err", "e": self.error(e)})

    def _handle(self, message: dict) -> Any:
        op = message.get("op")
        args = [self.decode(a) for a in message.get("args", [])]
        if op == "module_call":
            if self.handler is None:
                raise PermissionError("module_call is only served in the sandbox")
            kwargs = {str(k): self.decode(v) for k, v in message.get("kwargs", {}).items()}
            return self.handler(str(message["module"]), str(message["name"]), args, kwargs)
        obj = self.objects[int(message["ref"])]
        if op == "call":
            kwargs = {str(k): self.decode(v) for k, v in message.get("kwargs", {}).items()}
            return obj(*args, **kwargs)
        if op == "getattr":
            name = str(args[0])
            if self.side == "t" and name.startswith("_"):
                raise AttributeError(f"{name} is not available to the student's code")
            return getattr(obj, name)
        if op == "getitem":
            return obj[args[0]]
        if op == "len":
            return len(obj)
        if op == "list":
            return list(obj)
        if op == "contains":
            return args[0] in obj
        if op == "bool":
            return bool(obj)
        if op == "str":
            return str(obj)
        raise PermissionError(f"operation {op!r} is not allowed")


_PORTABLE_FUNCTIONS: list[tuple[Any, str]] = []


def _portable_name(obj: Any) -> str | None:
    """The ``PORTABLE`` name of ``obj`` if it is one of those functions itself (a test's spy wrapping one is not)."""
    return next((name for fn, name in _PORTABLE_FUNCTIONS if fn is obj), None)


def _function(name: str) -> Any:
    module, _, path = name.partition(":")
    obj: Any = importlib.import_module(module)
    for attr in path.split("."):
        obj = getattr(obj, attr)
    return obj


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


def _allowed_class(name: str) -> type | None:
    module, _, qualname = str(name).partition(":")
    if not module.startswith(ALLOWED_CLASSES):
        return None
    try:
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return None
    return obj if isinstance(obj, type) else None


for _entry in PORTABLE:  # looked up once, when this module is imported (before any test could patch one)
    try:
        _PORTABLE_FUNCTIONS.append((_function(_entry), _entry))
    except (ImportError, AttributeError):  # a course without the simulator or the weather tool
        continue
