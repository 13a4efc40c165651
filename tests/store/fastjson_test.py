"""The hook path's JSON gives exactly what the standard library's json gives."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rewind.store.fastjson import dumps, load_object, loads

SAMPLES: list[object] = [
    {"a": 1, "b": [1, 2.5, -3e-7, None, True, False], "c": {"nested": "x"}},
    {"unicode": "héllo ☃ 𝄞", "escapes": 'quote " backslash \\ newline \n tab \t'},
    {"surrogate-escaped file name": "caf\udce9.txt"},
    {"big": 12345678901234567890, "float": 0.1, "empty": {}, "list": []},
    [],
    "just a string",
    0,
]


@pytest.mark.parametrize("value", SAMPLES, ids=range(len(SAMPLES)))
@pytest.mark.unit
def test_dumps_matches_json_compact(value: object) -> None:
    assert dumps(value) == json.dumps(value, separators=(",", ":"))


@pytest.mark.parametrize("value", SAMPLES, ids=range(len(SAMPLES)))
@pytest.mark.unit
def test_loads_round_trips(value: object) -> None:
    assert loads(dumps(value)) == value
    assert loads(json.dumps(value, indent=2)) == value


@pytest.mark.unit
def test_loads_accepts_surrounding_whitespace_and_constants() -> None:
    assert loads(' \n {"x": NaN, "y": -Infinity, "z": Infinity}\t') is not None
    assert loads(" [1] ") == [1]


@pytest.mark.parametrize("text", ["", "{", "[1] x", "{'single': 1}", "nul"])
@pytest.mark.unit
def test_invalid_json_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        loads(text)


@pytest.mark.unit
def test_load_object_refuses_other_values() -> None:
    assert load_object('{"a": 1}') == {"a": 1}
    with pytest.raises(ValueError, match="JSON object"):
        load_object("[1]")


@pytest.mark.unit
def test_unserialisable_values_are_type_errors() -> None:
    with pytest.raises(TypeError, match="bytes is not JSON serialisable"):
        dumps({"x": b"bytes"})


def test_invalid_json_is_a_value_error_before_json_is_imported() -> None:
    """The hook path never imports json; the C scanner then reports some errors differently."""
    code = (
        "import sys\n"
        "from rewind.store.fastjson import loads\n"
        "for text in ['{not json', '{\"a\" 1}', '[1 2]', '{\"a\": }', '[1,']:\n"
        "    try:\n"
        "        loads(text)\n"
        "    except ValueError:\n"
        "        pass\n"
        "    else:\n"
        "        raise SystemExit(f'{text!r} was accepted')\n"
        "assert 'json' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
