from __future__ import annotations

from rewind.commands.status import human_size
from rewind.history.opening import open_current_store
from rewind.history.upkeep import collect
from rewind.store.packing import GcBusy


def run(*, quiet: bool) -> int:
    store = open_current_store()
    try:
        report = collect(store)
    except GcBusy as busy:
        if not quiet:
            print(f"rewind: {busy}")
        return 0
    if not quiet:
        print(
            f"packed {report.packed} objects, removed {report.loose_removed} loose ones: "
            f"{human_size(report.size_before)} -> {human_size(report.size_after)}"
        )
    return 0
