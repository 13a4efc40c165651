"""Times people type: ``--since 2026-11-30``, ``--since "2026-11-30 14:05"``, ``--since 3d``."""

from __future__ import annotations

import time

from rewind.errors import UserError

_UNITS = {
    "s": 1,
    "sec": 1,
    "second": 1,
    "m": 60,
    "min": 60,
    "minute": 60,
    "h": 3600,
    "hour": 3600,
    "d": 86400,
    "day": 86400,
    "w": 7 * 86400,
    "week": 7 * 86400,
}
_FORMATS = (
    "%Y-%m-%d",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%dT%H:%M:%S",
)


def parse_since(text: str, now: float | None = None) -> float:
    """Seconds since the epoch for a local date or date and time, an age (``3d``, ``12h``,
    ``2 weeks ago``), ``today`` or ``yesterday`` (local midnight)."""
    now = time.time() if now is None else now
    wanted = text.strip().lower()
    if wanted in ("today", "yesterday"):
        midnight = time.mktime((*time.localtime(now)[:3], 0, 0, 0, 0, 0, -1))
        return midnight - (86400 if wanted == "yesterday" else 0)
    age = _age(wanted)
    if age is not None:
        return now - age
    for layout in _FORMATS:
        try:
            return time.mktime(time.strptime(text.strip(), layout))
        except ValueError:
            continue
    raise UserError(
        f"--since takes a date (2026-11-30), a date and time (2026-11-30 14:05) or an age "
        f"(3d, 12h, 30m, '2 weeks ago'), not {text!r}."
    )


def _age(text: str) -> float | None:
    words = text.removesuffix("ago").strip()
    number = words.rstrip("abcdefghijklmnopqrstuvwxyz ")
    unit = words[len(number) :].strip()
    if not number or not unit:
        return None
    try:
        count = float(number)
    except ValueError:
        return None
    seconds = _UNITS.get(unit) or _UNITS.get(unit.removesuffix("s"))
    return count * seconds if seconds is not None and count >= 0 else None
