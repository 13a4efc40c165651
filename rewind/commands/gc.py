from __future__ import annotations

import sys
import time

from rewind.commands.output.render import human_size
from rewind.errors import UserError
from rewind.history.restoring.opening import open_current_store
from rewind.history.upkeep import retention
from rewind.history.upkeep.collection import collect
from rewind.history.upkeep.drill import drill
from rewind.store.event_log import STATS_DIR
from rewind.store.gc_record import GC_RECORD, GcRecord, write_gc_record
from rewind.store.packing import GcBusy, PackReport
from rewind.store.repository import Store

# How many kept entries, drawn at random across sessions, gc rebuilds and verifies once it has
# packed (a full drill is 'rewind check --drill').
DRILL_SAMPLE = 20


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
    started = time.time()
    try:
        report, cuts, fetched = collect(store, full=full)
    except GcBusy as busy:
        if not quiet:
            print(f"rewind: {busy}")
        return 0
    _keep_record(store, report, cuts, started, time.time() - started)
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
        if fetched.remotes:
            print(
                f"collected what was fetched from {', '.join(fetched.remotes)}: "
                f"{human_size(fetched.size_before)} -> {human_size(fetched.size_after)}"
            )
    return _drill_a_sample(store, quiet)


def _keep_record(
    store: Store, report: PackReport, cuts: list[retention.Cut], started: float, seconds: float
) -> None:
    """Writes what this gc did to ``rewind/stats/gc.json``, which 'rewind status' reads the
    store's size from and 'rewind stats' shows."""
    dropped: dict[str, object] = {
        "sessions": len(cuts),
        "entries": sum(cut.dropped for cut in cuts),
        "bytes": sum(cut.freed for cut in cuts),
    }
    record = GcRecord(
        started,
        seconds,
        report.size_before,
        report.size_after,
        packed=report.packed,
        loose_removed=report.loose_removed,
        retention_dropped=dropped,
    )
    try:
        write_gc_record(store.state_path(STATS_DIR, GC_RECORD), record)
    except OSError as error:  # the gc itself is done: say so, in the store's log
        store.log_problem(f"the record of the gc could not be written: {error}")


def _drill_a_sample(store: Store, quiet: bool) -> int:
    """Rebuilds a sample of the kept entries, as a restore would, to show the packed store still
    restores them; each problem goes to the store's log (and is printed unless ``quiet``)."""
    try:
        report = drill(store, sample=DRILL_SAMPLE)
    except (UserError, OSError) as error:
        message = f"the recovery drill after gc could not run ({error})"
        store.log_problem(message)
        if not quiet:
            print(f"rewind: {message}; 'rewind check --drill' runs it again.", file=sys.stderr)
        return 0
    for problem in report.problems:
        store.log_problem(f"gc's recovery drill: {problem.message}")
        if not quiet:
            print(f"rewind: {problem.message}", file=sys.stderr)
    if quiet:
        return 0 if report.restorable else 1
    entries = f"{report.entries} entr{'y' if report.entries == 1 else 'ies'}"
    if report.restorable:
        print(f"drill: checked {report.states} states of {entries} drawn at random: all restorable")
        return 0
    print(
        f"drill: checked {report.states} states of {entries} drawn at random: "
        f"{len(report.problems)} problem(s) (listed on standard error); 'rewind check --drill' "
        "verifies every entry"
    )
    return 1
