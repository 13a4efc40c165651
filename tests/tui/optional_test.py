"""The TUI's optional parts (the rewind menu, 'u' and 'U'): only a module that is not there is
left out; one that is there but cannot be imported fails loudly, never a menu silently gone."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rewind.tui.app import _optional
from rewind.tui.rewind_menu import RewindMenu

PROBES = ("optional_probe_absent", "optional_probe_broken", "optional_probe_bad_name")


@pytest.fixture
def probes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on the import path for modules of the tests' own, forgotten afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield tmp_path
    for name in PROBES:
        sys.modules.pop(name, None)


def test_the_rewind_menu_is_there() -> None:
    assert _optional("rewind.tui.rewind_menu", "RewindMenu") is RewindMenu


def test_a_module_that_is_not_there_is_left_out(probes: Path) -> None:
    assert _optional("optional_probe_absent", "RewindMenu") is None


def test_a_module_whose_own_import_is_missing_fails(probes: Path) -> None:
    (probes / "optional_probe_broken.py").write_text("import a_module_nobody_wrote\n")
    with pytest.raises(ModuleNotFoundError) as raised:
        _optional("optional_probe_broken", "RewindMenu")
    assert raised.value.name == "a_module_nobody_wrote"


def test_a_module_importing_a_name_that_is_gone_fails(probes: Path) -> None:
    (probes / "optional_probe_bad_name.py").write_text("from os import no_such_name\n")
    with pytest.raises(ImportError, match="no_such_name"):
        _optional("optional_probe_bad_name", "RewindMenu")
