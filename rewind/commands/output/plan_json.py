"""``rewind restore --dry-run --json`` and ``undo --dry-run --json``: the plan as data (format 1,
docs/cli.md)."""

from __future__ import annotations

from rewind.commands.output.json_output import FORMAT
from rewind.commands.output.records_json import entry_key_json, path_json, version_json
from rewind.history.restoring.hunks import describe_selection
from rewind.history.restoring.partial import PartialPlan
from rewind.history.restoring.restore_plan import CANNOT, PlannedFile, RestorePlan
from rewind.history.restoring.versions import VersionPlan


def plan_json(plan: RestorePlan) -> dict[str, object]:
    """The plan as data; a version's restore adds "version" (which one), a partial rewind adds,
    per file, the hunks chosen and the diff from the file now to what it will hold."""
    subject = plan.subject
    shape: dict[str, object] = {
        "format": FORMAT,
        "kind": plan.kind,
        "session": plan.session,
        "target": {**entry_key_json(subject), "kind": subject.kind},
        "changes": len(plan.changes),
        "conflicts": len(plan.conflicts),
        "skipped": len(plan.blocked),
        "files": [_planned_json(planned) for planned in plan.files],
    }
    if isinstance(plan, VersionPlan):
        # "number" as well: the name this key first used (format 1).
        shape["version"] = {**version_json(plan.version), "number": plan.version.entry.number}
    if isinstance(plan, PartialPlan):
        files = shape["files"]
        assert isinstance(files, list)
        for item, planned in zip(files, plan.files, strict=True):
            item["hunks"] = describe_selection(plan.chosen[planned.path])
            item["diff"] = plan.resulting_diff(planned)
    return shape


def _planned_json(planned: PlannedFile) -> dict[str, object]:
    item = path_json(planned.path)
    item.update(
        action=planned.action,
        conflict=planned.conflict and planned.action != CANNOT,
        reason=planned.reason() or None,
        before=planned.current.to_json(),
        after=planned.target.to_json(),
    )
    return item
