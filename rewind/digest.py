"""SHA-1, as git names objects.

hashlib loads OpenSSL (about 2 ms of every hook call); CPython's built-in module is enough.
"""

from __future__ import annotations

try:
    from _sha1 import sha1 as _sha1  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - CPython always has _sha1
    from hashlib import sha1 as _sha1


def sha1_hex(data: bytes) -> str:
    digest: str = _sha1(data).hexdigest()
    return digest
