from __future__ import annotations

from rewind.commands.status import human_size
from rewind.history import retention
from rewind.history.opening import open_current_store
from rewind.history.upkeep import collect
from rewind.store.packing import GcBusy


def run(*, quiet: bool, dry_run: bool = False, full: bool = False) -> int:
    store = open_current_store()
    if dry_run:
        cuts = retention.plan(store, store.config.retention)
        for cut in cuts:
            print(f"would drop {cut.describe()}")
        freed = sum(cut.freed for cut in cuts)
        print(
            f"retention would drop {sum(cut.dropped for cut in cuts)} entries of {len(cuts)} "
            f"session(s), about {human_size(freed)} of content; nothing was changed."
        )
        return 0
    try:
        report, cuts = collect(store, full=full)
    except GcBusy as busy:
        if not quiet:
            print(f"rewind: {busy}")
        return 0
    if not quiet:
        for cut in cuts:
            print(f"retention dropped {cut.describe()}")
        how = "full repack: " if report.full else ""
        rolled = f" (with {report.rolled} older pack(s))" if report.rolled else ""
        print(
            f"{how}packed {report.packed} objects{rolled}, removed {report.loose_removed} "
            f"loose ones: {human_size(report.size_before)} -> {human_size(report.size_after)}, "
            f"{report.packs} pack(s)"
        )
    return 0
