"""``rewind stats`` as text: one aligned block per project."""

from __future__ import annotations

from rewind.commands.output.render import local_time
from rewind.commands.stats_figures import ProjectFigures
from rewind.store.home import rewind_home
from rewind.store.hook_calls import (
    ERROR,
    IGNORED,
    LOCK_TIMEOUT,
    SPECIAL,
    SPOOLED,
    TOO_LARGE,
    UNREADABLE,
    UNWATCHED,
    HookWindow,
)
from rewind.store.storage_check import human_size

TYPE_CHECKING = False
if TYPE_CHECKING:
    from rewind.actions.changes import RestoreCounts
    from rewind.store.gc_record import GcRecord

LABEL = 14  # the width of the labels' column
HOOK_ROWS = (
    ("lock timeouts", LOCK_TIMEOUT),
    ("records spooled", SPOOLED),
    ("events failed", ERROR),
    ("events ignored", IGNORED),
    ("files unreadable", UNREADABLE),
    ("files too large", TOO_LARGE),
    ("special files", SPECIAL),
    ("calls unwatched", UNWATCHED),
)


def print_projects(projects: list[ProjectFigures], all_projects: bool) -> None:
    if all_projects and not projects:
        print(f"rewind has recorded no project yet (there is no store in {rewind_home()}).")
        return
    for index, figures in enumerate(projects):
        if index:
            print()
        print("\n".join(project_lines(figures)))
    if len(projects) > 1:
        print()
        print(_total_line(projects))


def project_lines(figures: ProjectFigures) -> list[str]:
    lines = [_row("project", figures.root or "(unknown)"), _row("store", figures.store_dir)]
    counted = figures.tally
    if figures.problem or counted is None:
        return [*lines, _row("problem", figures.problem)]
    kinds = counted.entries
    entries = f"{counted.entry_count}: {kinds['turn']} turn(s), {kinds['restore']} restore(s), "
    entries += f"{kinds['undo']} undo(s)"
    if kinds.get("redo"):
        entries += f", {kinds['redo']} redo(s)"
    if kinds["damaged"]:
        entries += f", {kinds['damaged']} damaged"
    sessions = str(counted.sessions)
    if counted.unreadable_sessions:
        sessions += f" ({counted.unreadable_sessions} more unreadable: see 'rewind check')"
    lines += [
        _row("sessions", sessions),
        _row("entries", entries),
        _row("files", f"{counted.file_records} record(s) of {counted.paths} path(s)"),
        _row("caught by", _sources(counted.by_source)),
        _row("recorded", f"{human_size(counted.recorded_bytes)} as full copies"),
        _row("on disk", _on_disk(counted.recorded_bytes, figures.on_disk)),
    ]
    if figures.restores is not None:
        lines.append(_row("restores", _restores(figures.restores)))
    lines.append(_row("last gc", _gc(figures.last_gc)))
    if figures.backup_line is not None:
        lines.append(_row("backup", figures.backup_line))
    if figures.fetched:
        lines.append(_row("fetched", f"{human_size(figures.fetched)} from remotes"))
    if figures.day is not None and figures.week is not None:
        lines += _hook_lines(figures.day, figures.week)
    return lines


def _row(label: str, value: str) -> str:
    return f"{label:<{LABEL}}{value}"


def _on_disk(recorded: int, on_disk: int) -> str:
    size = f"{human_size(on_disk)} measured"  # 'rewind status' gives an estimate
    if on_disk and recorded > on_disk:
        return f"{size}, {recorded / on_disk:.1f}x less than recorded"
    return f"{size}, more than recorded (the store's own files outweigh what it holds)"


def _restores(counts: RestoreCounts) -> str:
    text = f"{counts.done} done, {counts.refused} refused (conflicts), {counts.undone} undone"
    if counts.undo_refused:
        text += f", {counts.undo_refused} undo(s) refused"
    return text


def _gc(record: GcRecord | None) -> str:
    if record is None:
        return "none yet"
    return (
        f"{local_time(record.started)}, {record.seconds:.1f} s: "
        f"{human_size(record.size_before)} -> {human_size(record.size_after)}; "
        f"retention dropped: {_dropped(record.retention_dropped)}"
    )


def _dropped(dropped: dict[str, object] | None) -> str:
    counts = dropped or {}
    entries, sessions, size = counts.get("entries"), counts.get("sessions"), counts.get("bytes")
    if not isinstance(entries, int) or not entries:
        return "none"
    freed = f", about {human_size(size)}" if isinstance(size, int) else ""
    return f"{entries} entries of {sessions} session(s){freed}"


def _hook_lines(day: HookWindow, week: HookWindow) -> list[str]:
    width = 11

    def row(label: str, first: str, second: str) -> str:
        return f"  {label:<{LABEL + 4}}{first:>{width}}{second:>{width}}"

    if not week.calls:
        return [_row("hook calls", "none in the last week")]
    lines = ["", row("hook calls", "last day", "last week")]
    lines.append(row("calls", str(day.calls), str(week.calls)))
    lines.append(row("latency p50", _ms(day.p50_ms), _ms(week.p50_ms)))
    lines.append(row("latency p95", _ms(day.p95_ms), _ms(week.p95_ms)))
    for label, name in HOOK_ROWS:
        lines.append(row(label, str(day.counts[name]), str(week.counts[name])))
    if not week.complete:
        lines.append("  (the oldest calls of the week were rotated out of the log: fewer shown)")
    return lines


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} ms"


def _total_line(projects: list[ProjectFigures]) -> str:
    counted = [figures.tally for figures in projects if figures.tally is not None]
    sessions = sum(t.sessions for t in counted)
    entries = sum(t.entry_count for t in counted)
    recorded = sum(t.recorded_bytes for t in counted)
    on_disk = sum(figures.on_disk for figures in projects)
    return (
        f"{len(projects)} projects: {sessions} session(s), {entries} entries, "
        f"{human_size(recorded)} recorded, {human_size(on_disk)} on disk"
    )


# How each way of catching a change is named in the text (rewind.history.entry's sources).
SOURCE_WORDS = {
    "edit": "edit tools",
    "shell": "quicksave",
    "external": "outside",
    "program": "programs",
}


def _sources(by_source: dict[str, int]) -> str:
    """The turns' file records by how rewind learnt of the change."""
    return ", ".join(f"{SOURCE_WORDS.get(name, name)} {count}" for name, count in by_source.items())
