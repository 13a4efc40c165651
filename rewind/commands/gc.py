from __future__ import annotations

import sys
import time

from rewind.actions.records import FORMAT, iso_time
from rewind.actions.stores import open_current_store
from rewind.commands.output.json_output import print_json
from rewind.errors import UserError
from rewind.history.upkeep import retention
from rewind.history.upkeep.collection import collect
from rewind.history.upkeep.drill import drill
from rewind.store.event_log import STATS_DIR
from rewind.store.gc_record import GC_RECORD, GcRecord, write_gc_record
from rewind.store.mirrors import MirrorsCollected
from rewind.store.packing import GcBusy, PackReport
from rewind.store.repository import Store
from rewind.store.storage_check import human_size

# How many kept entries, drawn at random across sessions, gc rebuilds and verifies once it has
# packed (a full drill is 'rewind check --drill').
DRILL_SAMPLE = 20


def run(*, quiet: bool, dry_run: bool = False, full: bool = False, as_json: bool = False) -> int:
    store = open_current_store()
    if dry_run:
        cuts = retention.plan(store, store.config.retention)
        if as_json:
            print_json({"format": FORMAT, "dry_run": True, "retention": _cuts_json(cuts)})
            return 0
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
        if as_json:
            print_json({"format": FORMAT, "dry_run": False, "busy": str(busy)})
        elif not quiet:
            print(f"rewind: {busy}")
        return 0
    _keep_record(store, report, cuts, started, time.time() - started)
    if as_json:
        return _print_json_report(store, report, cuts, fetched)
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


def _cuts_json(cuts: list[retention.Cut]) -> list[dict[str, object]]:
    return [
        {
            "session": cut.session,
            "keep_from": cut.keep_from,
            "dropped": cut.dropped,
            "newest_dropped": iso_time(cut.newest_dropped) if cut.dropped else None,
            "freed": cut.freed,
        }
        for cut in cuts
    ]


def _print_json_report(
    store: Store, report: PackReport, cuts: list[retention.Cut], fetched: MirrorsCollected
) -> int:
    """``gc --json``: what was packed and dropped, and the recovery drill of a sample."""
    try:
        drilled = drill(store, sample=DRILL_SAMPLE)
    except (UserError, OSError) as error:
        store.log_problem(f"the recovery drill after gc could not run ({error})")
        drilled = None
    for problem in drilled.problems if drilled is not None else []:
        store.log_problem(f"gc's recovery drill: {problem.message}")
    print_json(
        {
            "format": FORMAT,
            "dry_run": False,
            "busy": None,
            "full": report.full,
            "packed": report.packed,
            "rolled": report.rolled,
            "loose_removed": report.loose_removed,
            "size_before": report.size_before,
            "size_after": report.size_after,
            "packs": report.packs,
            "retention": _cuts_json(cuts),
            "fetched": {
                "remotes": fetched.remotes,
                "size_before": fetched.size_before,
                "size_after": fetched.size_after,
            },
            "drill": drilled.to_json() if drilled is not None else None,
        }
    )
    return 0 if drilled is None or drilled.restorable else 1


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
