"""Opening a project's store, for every interface: any restore a killed process left half done
is finished first (rewind.history.restoring.opening), so that nothing reads or records over a
work tree half put back. Light: the hook path opens the store through here."""

from __future__ import annotations

from rewind.history.restoring.opening import open_current_store, open_store

__all__ = ["open_current_store", "open_store"]
