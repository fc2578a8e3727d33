"""Tool sandboxes: a folder a tool may write in, and nothing outside it, even under races.

``Folder`` opens its directory once and reaches every file relative to that open directory with
no-follow semantics (``os.open(..., dir_fd=..., O_NOFOLLOW)``: the ``openat`` family), so swapping a
file or a folder on the way for a symlink between a check and a write cannot redirect the write.
Writes go to a unique ``O_EXCL`` temporary file and ``os.replace`` it (atomic), and writers of one
folder take one ``fcntl`` lock, so two concurrent writers lose nothing. Hard links, symlinks, ``..``,
absolute paths, NUL, device names and over-long names are refused with a readable
:class:`SandboxPathError`. Used by ``save_note`` (``weather.py``) and the memory tool
(``context/memory.py``).
"""

from agentlab.sandbox.folder import Folder, SandboxPathError

__all__ = ["Folder", "SandboxPathError"]
