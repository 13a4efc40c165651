"""Which install targets there are: this package's, each named in :data:`TARGETS` with a
function that imports its module only when it is wanted, and those defined outside the package
(:func:`register`). See :mod:`rewind.installers` for what a target is.
"""

from __future__ import annotations

from rewind.errors import UserError, did_you_mean
from rewind.installers import SCOPES, Target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def _claude_code() -> Target:
    from rewind.installers.claude_code import TARGET

    return TARGET


def _codex() -> Target:
    from rewind.installers.codex import TARGET

    return TARGET


def _gemini() -> Target:
    from rewind.installers.gemini import TARGET

    return TARGET


def _cursor() -> Target:
    from rewind.installers.cursor import TARGET

    return TARGET


def _copilot() -> Target:
    from rewind.installers.copilot import TARGET

    return TARGET


def _cline() -> Target:
    from rewind.installers.cline import TARGET

    return TARGET


def _git_hook() -> Target:
    from rewind.installers.git_hook import TARGET

    return TARGET


def _windsurf() -> Target:
    from rewind.installers.windsurf import TARGET

    return TARGET


def _pi() -> Target:
    from rewind.installers.pi import TARGET

    return TARGET


def _droid() -> Target:
    from rewind.installers.droid import TARGET

    return TARGET


def _opencode() -> Target:
    from rewind.installers.opencode import TARGET

    return TARGET


def _kilo() -> Target:
    from rewind.installers.opencode import KILO_TARGET

    return KILO_TARGET


def _qwen() -> Target:
    from rewind.installers.qwen import TARGET

    return TARGET


# This package's targets, by name, in the order help texts and doctor's report list them.
TARGETS: dict[str, Callable[[], Target]] = {
    "claude-code": _claude_code,
    "codex": _codex,
    "gemini": _gemini,
    "cursor": _cursor,
    "copilot": _copilot,
    "cline": _cline,
    "git-hook": _git_hook,
    "windsurf": _windsurf,
    "pi": _pi,
    "qwen": _qwen,
    "droid": _droid,
    "opencode": _opencode,
    "kilo": _kilo,
}
# Targets defined outside this package (register).
_registry: dict[str, Target] = {}


def register(target: Target) -> None:
    """Makes ``target``, defined outside this package, available as ``rewind install NAME``
    (and uninstall, doctor)."""
    if not target.name or target.name in TARGETS or target.name in _registry:
        raise ValueError(f"install target {target.name!r} has no name or is registered twice")
    if target.default_scope not in target.scopes or not set(target.scopes) <= set(SCOPES):
        raise ValueError(f"install target {target.name!r} has unknown scopes")
    _registry[target.name] = target


def targets() -> dict[str, Target]:
    """Every target by name: this package's, in the order of :data:`TARGETS` (each module
    imported now), then the registered ones by name."""
    found = {name: load() for name, load in TARGETS.items()}
    return {**found, **{name: _registry[name] for name in sorted(_registry)}}


def get_target(name: str) -> Target:
    """The target people name ``name``, importing its module alone."""
    load = TARGETS.get(name)
    if load is not None:
        return load()
    found = _registry.get(name)
    if found is None:
        known = [*TARGETS, *sorted(_registry)]
        hint = did_you_mean(name, known)
        raise UserError(f"unknown target {name!r}{hint} (one of {', '.join(known)})")
    return found
