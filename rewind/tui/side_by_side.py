"""A unified diff laid out side by side: the old lines on the left, the new on the right."""

from __future__ import annotations

from rich.text import Text

Row = tuple[Text, Text, Text, Text]  # old number, old line, new number, new line


def _pair(removed: list[tuple[int, str]], added: list[tuple[int, str]]) -> list[Row]:
    rows = []
    for position in range(max(len(removed), len(added))):
        old = removed[position] if position < len(removed) else None
        new = added[position] if position < len(added) else None
        rows.append(
            (
                Text(str(old[0]) if old else "", style="dim"),
                Text(old[1] if old else "", style="red"),
                Text(str(new[0]) if new else "", style="dim"),
                Text(new[1] if new else "", style="green"),
            )
        )
    return rows


def _hunk_start(header: str) -> tuple[int, int]:
    """``@@ -12,3 +14,5 @@`` gives (12, 14)."""
    old, new = header.split(" ")[1:3]
    return int(old[1:].split(",")[0]), int(new[1:].split(",")[0])


def side_by_side_rows(text: str) -> list[Row | str]:
    """Rows of the table; a hunk header comes as a plain string."""
    rows: list[Row | str] = []
    removed: list[tuple[int, str]] = []
    added: list[tuple[int, str]] = []
    old_number = new_number = 0
    in_hunk = False
    for line in text.splitlines():
        if line.startswith("@@"):
            rows.extend(_pair(removed, added))
            removed, added = [], []
            old_number, new_number = _hunk_start(line)
            rows.append(line)
            in_hunk = True
        elif not in_hunk or line.startswith("\\"):
            continue
        elif line.startswith("-"):
            removed.append((old_number, line[1:]))
            old_number += 1
        elif line.startswith("+"):
            added.append((new_number, line[1:]))
            new_number += 1
        else:
            rows.extend(_pair(removed, added))
            removed, added = [], []
            same = line[1:]
            rows.append(
                (
                    Text(str(old_number), style="dim"),
                    Text(same),
                    Text(str(new_number), style="dim"),
                    Text(same),
                )
            )
            old_number += 1
            new_number += 1
    rows.extend(_pair(removed, added))
    return rows
