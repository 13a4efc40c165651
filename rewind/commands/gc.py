from __future__ import annotations

import sys

from rewind.commands.status import human_size
from rewind.errors import UserError
from rewind.history import retention
from rewind.history.drill import drill
from rewind.history.opening import open_current_store
from rewind.history.upkeep import collect
from rewind.store.packing import GcBusy
from rewind.store.repository import Store

# How many kept entries, drawn at random across sessions, gc rebuilds and verifies once it has
# packed (a full drill is 'rewind check --drill').
DRILL_SAMPLE = 20


def run(*, quiet: bool, dry_run: bool = False) -> int:
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
        report, cuts = collect(store)
    except GcBusy as busy:
        if not quiet:
            print(f"rewind: {busy}")
        return 0
    if not quiet:
        for cut in cuts:
            print(f"retention dropped {cut.describe()}")
        print(
            f"packed {report.packed} objects, removed {report.loose_removed} loose ones: "
            f"{human_size(report.size_before)} -> {human_size(report.size_after)}"
        )
    return _drill_a_sample(store, quiet)


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
