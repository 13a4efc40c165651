"""What the history's in-process tests share: an empty project with its store."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.histories import History, make_project


@pytest.fixture
def history(tmp_path: Path) -> History:
    """An empty project and its store, recorded into in this process (a module may define
    its own, with turns in it)."""
    return History(make_project(tmp_path))
