"""Asking the person at the terminal before a command changes something."""

from __future__ import annotations


def asked_yes(question: str) -> bool:
    """Asks ``question`` followed by ``[y/N]``; True only for "y" or "yes" (the end of input,
    or anything else, is no)."""
    try:
        answer = input(f"{question} [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")
