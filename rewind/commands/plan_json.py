"""``rewind restore --dry-run --json`` and ``undo --dry-run --json``: the plan as data (format 1,
docs/cli.md)."""

from __future__ import annotations

from rewind.commands.json_output import FORMAT
from rewind.history.restore_plan import CANNOT, PlannedFile, RestorePlan
from rewind.history.summary import path_json


def plan_json(plan: RestorePlan) -> dict[str, object]:
    subject = plan.subject
    return {
        "format": FORMAT,
        "kind": plan.kind,
        "session": plan.session,
        "target": {"turn": subject.number, "id": subject.id, "kind": subject.kind},
        "changes": len(plan.changes),
        "conflicts": len(plan.conflicts),
        "skipped": len(plan.blocked),
        "files": [_planned_json(planned) for planned in plan.files],
    }


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
