"""How the ``--json`` outputs are printed; their shapes are rewind.actions.records's (docs/cli.md
documents every one)."""

from __future__ import annotations

import json

from rewind.errors import UserError


def print_json(value: object) -> None:
    print(json.dumps(value, indent=2))


def refuse_json_without_dry_run(as_json: bool, dry_run: bool, command: str) -> None:
    if as_json and not dry_run:
        raise UserError(
            f"--json prints the plan only: use 'rewind {command} --dry-run --json', "
            "then run it without --json."
        )
