"""Which objects a pack holds, read from its ``.idx`` file (git's version 2 pack index).

The index is mapped, not loaded: asking whether a pack holds an object is a binary search over
its sorted names (narrowed by the fan-out table), so that a gc that packs a few new objects
does not pay for reading the names of the whole history. Layout (all integers big-endian)::

    b"\\xfftOc", version 2 (4 bytes)
    fan-out: 256 counts; entry i = how many names start with a byte <= i (the last: all)
    names: count x 20 bytes, sorted
    CRC-32s, offsets, large offsets, then the pack's and the index's checksums
"""

from __future__ import annotations

import mmap
import os
import struct

from rewind.errors import StoreError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

_MAGIC = b"\xfftOc"
_FAN_OUT_AT = 8
_NAMES_AT = _FAN_OUT_AT + 256 * 4


class PackIndex:
    """One pack's index, mapped read-only (it stays readable after its file is removed)."""

    __slots__ = ("_fan_out", "_map", "count", "name")

    def __init__(self, path: str) -> None:
        self.name = os.path.basename(path)[: -len(".idx")]
        try:
            with open(path, "rb") as handle:
                self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as error:  # ValueError: an empty file cannot be mapped
            raise _damaged(path, str(error)) from None
        if len(self._map) < _NAMES_AT or self._map[:8] != _MAGIC + b"\0\0\0\x02":
            self._map.close()
            raise _damaged(path, "it is not a version 2 pack index")
        self._fan_out: tuple[int, ...] = struct.unpack_from(">256I", self._map, _FAN_OUT_AT)
        self.count = self._fan_out[255]
        if len(self._map) < _NAMES_AT + self.count * 28 + 40:
            self._map.close()
            raise _damaged(path, "it is cut short")

    def __contains__(self, oid: str) -> bool:
        try:
            raw = bytes.fromhex(oid)
        except ValueError:
            return False
        return len(raw) == 20 and self.holds(raw)

    def holds(self, raw: bytes) -> bool:
        first = raw[0]
        low = self._fan_out[first - 1] if first else 0
        high = self._fan_out[first]
        names = self._map
        while low < high:
            middle = (low + high) // 2
            at = _NAMES_AT + middle * 20
            found = names[at : at + 20]
            if found == raw:
                return True
            if found < raw:
                low = middle + 1
            else:
                high = middle
        return False

    def raw_names(self) -> Iterator[bytes]:
        """Every object the pack holds (20-byte ids, in order)."""
        names = self._map
        for at in range(_NAMES_AT, _NAMES_AT + self.count * 20, 20):
            yield names[at : at + 20]

    def close(self) -> None:
        self._map.close()


def _damaged(path: str, why: str) -> StoreError:
    return StoreError(
        f"the pack index {path} cannot be read ({why}); run 'rewind check' to see what it affects."
    )
