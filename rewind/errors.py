"""The errors rewind reports to people, and the exit codes that go with them."""

from __future__ import annotations


class ExitCode:
    """The process's exit codes (plain ints: importing enum costs the hook path ~3 ms)."""

    OK = 0
    USER_ERROR = 1
    CRASH = 3
    INTERRUPTED = 130


class UserError(Exception):
    """A mistake the person can fix: printed as one sentence that says what to do next."""

    exit_code = ExitCode.USER_ERROR


class ConflictError(UserError):
    """A restore would overwrite work rewind has not seen: nothing was changed."""


class StoreError(UserError):
    """The store is damaged or unreadable."""
