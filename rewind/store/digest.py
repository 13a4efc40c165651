"""SHA-1, as git names objects.

CPython's built-in SHA-1 costs nothing to import but hashes about 300 MB/s; OpenSSL's, through
hashlib, about 2 GB/s, but importing hashlib takes about 2 ms. A hook call hashes a few objects
of a few KB, so it keeps the built-in one; a process that has hashed more than
``_FAST_SHA1_AFTER`` bytes (a restore of many files, a track of large ones) switches, which
repays the import from about 1 MB on. Both compute the same digest.
"""

from __future__ import annotations

try:
    from _sha1 import sha1 as _builtin_sha1  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - CPython always has _sha1
    from hashlib import sha1 as _builtin_sha1

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_FAST_SHA1_AFTER = 1 << 20
_hashed = 0
_fast_sha1: Callable[[bytes], str] | None = None


def sha1_hex(data: bytes) -> str:
    global _hashed, _fast_sha1
    if _fast_sha1 is None:
        _hashed += len(data)
        if _hashed <= _FAST_SHA1_AFTER:
            digest: str = _builtin_sha1(data).hexdigest()
            return digest
        _fast_sha1 = _load_fast_sha1()
    return _fast_sha1(data)


def _load_fast_sha1() -> Callable[[bytes], str]:
    try:
        import hashlib

        hashlib.sha1(b"", usedforsecurity=False)
    except (ImportError, ValueError):  # no OpenSSL, or one that refuses SHA-1
        return lambda data: str(_builtin_sha1(data).hexdigest())

    def openssl_sha1_hex(data: bytes) -> str:
        return hashlib.sha1(data, usedforsecurity=False).hexdigest()

    return openssl_sha1_hex
