"""The ranges a number in a record must lie in, checked where a record is read.

A record rewind wrote never leaves them; one a remote made up can hold anything JSON spells:
NaN, ``Infinity``, ``1e300``, a 40-digit integer, ``true``. Such a number would crash whatever
shows it (a date past the year 9999, a mode that ``chmod`` refuses) or be refused by the index
(SQLite stores NaN as NULL). So a record holding one is damaged, as a whole, where it becomes an
entry (rewind.history.entry): every reader gets the same answer, and the other entries and
sessions read on.
"""

from __future__ import annotations

# 9999-12-31 23:59:59 UTC: the last second every way of showing a time can show (a date of
# five digits is not a date time.strftime or datetime can print).
MAX_TIME = 253402300799.0
# The largest integer every JSON reader holds exactly ('rewind log --json' prints numbers).
MAX_COUNT = 2**53
# What st_size and st_mtime_ns hold: signed 64 bits.
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
# Permission bits, and setuid, setgid and sticky: what stat.S_IMODE gives.
MAX_MODE = 0o7777
# The folders of one path: a path no longer than PATH_MAX (4096 bytes) has fewer.
MAX_FOLDERS = 4096


def integer(data: dict[str, object], key: str, low: int, high: int) -> int:
    """``data[key]`` (0 when it is absent or null); a ValueError naming the key unless it is an
    integer, not a boolean, from ``low`` to ``high``."""
    value = data.get(key)
    if type(value) is int and low <= value <= high:  # not a bool, whose type is bool
        return value
    if value is None:
        return 0
    raise ValueError(f'"{key}" holds {_shown(value)}, not a whole number from {low} to {high}')


def seconds(data: dict[str, object], key: str) -> float | None:
    """``data[key]``, a time in seconds since the epoch (None when it is absent or null); a
    ValueError naming the key unless it is a number from 0 to :data:`MAX_TIME` (NaN and the
    infinities are not)."""
    value = data.get(key)
    if (type(value) is float or type(value) is int) and 0 <= value <= MAX_TIME:  # not NaN
        return float(value)
    if value is None:
        return None
    raise ValueError(f'"{key}" holds {_shown(value)}, not a time from 1970 to the year 9999')


def _shown(value: object) -> str:
    """A number as the record spells it, cut short (it can be thousands of digits); the type of
    anything else."""
    if not isinstance(value, int | float):
        return f"a {type(value).__name__}"
    text = repr(value)
    return text if len(text) <= 24 else text[:20] + "..."
