from __future__ import annotations

from rewind.commands.status import human_size
from rewind.packing import GcBusy, pack_store
from rewind.store import Store


def run(*, quiet: bool) -> int:
    store = Store.of_current_project()
    try:
        report = pack_store(store)
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
