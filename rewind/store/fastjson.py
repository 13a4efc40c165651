"""JSON for the hook path, through the standard library's own C accelerator.

``import json`` compiles regular expressions (and so imports ``re`` and ``enum``) at import time:
about 7 ms of every hook call, most of a hook's budget. The scanner and encoder that do the
actual work live in the C module ``_json``, which imports in well under a millisecond; this
module drives them the way ``json.loads`` and ``json.dumps(obj, separators=(",", ":"))`` do,
with the same output. Where ``_json`` is missing (another Python implementation), the ``json``
module is used instead.

Whatever it reads may have come from outside (a hook's event, a transcript, a fetched record),
so a value nested deeper than ``rewind.store.input_limits.DEPTH`` is a ValueError, as is one too
deep for the scanner itself (a RecursionError).
"""

from __future__ import annotations

from rewind.store.input_limits import DEPTH, check_json_depth

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_WHITESPACE = " \t\n\r"
_TOO_DEEP = f"JSON nested too deeply (more than {DEPTH} levels)"


class _ScannerSettings:
    """What ``json.JSONDecoder()`` hands its scanner: plain ints, floats and dicts."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        return float(name.replace("Infinity", "inf"))


def _skip_whitespace(text: str, index: int) -> int:
    while index < len(text) and text[index] in _WHITESPACE:
        index += 1
    return index


def _build() -> tuple[Callable[[str], object], Callable[[object], str]]:
    try:
        from _json import encode_basestring_ascii, make_encoder, make_scanner

        scan = make_scanner(_ScannerSettings())  # type: ignore[arg-type]
        encode = make_encoder(
            None, _cannot_encode, encode_basestring_ascii, None, ":", ",", False, False, True
        )
    except (ImportError, TypeError):  # pragma: no cover - CPython 3.11+ always has both
        import json

        def loads_with_json(text: str) -> object:
            try:
                value = json.loads(text)
            except RecursionError:
                raise ValueError(_TOO_DEEP) from None
            _check_depth(text, value)
            return value

        return loads_with_json, lambda value: json.dumps(value, separators=(",", ":"))

    def loads(text: str) -> object:
        start = _skip_whitespace(text, 0)
        try:
            value, end = scan(text, start)
        except StopIteration:
            raise ValueError(f"not JSON at character {start}") from None
        except SystemError:
            # Inside an object or array the scanner reports an error by raising
            # json.decoder.JSONDecodeError, which it only finds once json.decoder is imported;
            # before that it fails with this SystemError instead.
            raise ValueError("not JSON") from None
        except RecursionError:  # the C scanner recurses once per level of nesting
            raise ValueError(_TOO_DEEP) from None
        if _skip_whitespace(text, end) != len(text):
            raise ValueError(f"extra data after JSON at character {end}")
        _check_depth(text, value)
        return value

    def dumps(value: object) -> str:
        return "".join(encode(value, 0))

    return loads, dumps


def _check_depth(text: str, value: object) -> None:
    try:
        check_json_depth(text, value)
    except ValueError:
        raise ValueError(_TOO_DEEP) from None


def _cannot_encode(value: object) -> object:
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


loads, dumps = _build()


def load_list(text: str) -> list[object]:
    """A JSON array; anything else is a ValueError."""
    value = loads(text)
    if not isinstance(value, list):
        raise ValueError(f"expected a JSON array, not {type(value).__name__}")
    return value


def load_object(text: str) -> dict[str, object]:
    """A JSON object (the only kind rewind stores); anything else is a ValueError."""
    value = loads(text)
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, not {type(value).__name__}")
    return value
