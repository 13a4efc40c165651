"""Settings from ``rewind.toml`` (project root, then the store); defaults need no file at all."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CONFIG_NAME = "rewind.toml"
DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024
# What expanding directories may add to the quicksave of one shell command (rewind.quicksave).
DEFAULT_QUICKSAVE_MAX_FILES = 2000
DEFAULT_QUICKSAVE_MAX_BYTES = 200 * 1024 * 1024
# Watch mode (rewind.watch, docs/watch.md).
DEFAULT_WATCH_EXCLUDE = (
    "node_modules",
    "__pycache__",
    "*.pyc",
    ".*.swp",
    ".*.swx",
    "*~",
    ".#*",
    ".DS_Store",
)
DEFAULT_WATCH_STORM_FILES = 1000
DEFAULT_WATCH_QUIET_MS = 150
DEFAULT_WATCH_MAX_DELAY_MS = 2000


class Retention:
    """``[retention]``: what gc keeps of old history (rewind.history.upkeep.retention,
    docs/store.md).

    Entries older than ``keep_days`` may be dropped, then more of the oldest while the store is
    larger than ``max_size_mb``; never the last ``keep_last`` entries of a session, never the
    newest session, never a labelled entry or anything after it.
    """

    __slots__ = ("enabled", "keep_days", "keep_last", "max_size_mb")

    def __init__(
        self,
        enabled: bool = True,
        keep_days: float = 30,
        keep_last: int = 20,
        max_size_mb: int = 2048,
    ) -> None:
        self.enabled = enabled
        self.keep_days = keep_days
        self.keep_last = keep_last
        self.max_size_mb = max_size_mb


# Paths whose contents are never pushed to a remote, whatever .gitignore says (docs/remote.md):
# gitignore's syntax, matched in any case (rewind.history.remote.exclude_patterns).
DEFAULT_REMOTE_EXCLUDE = (
    ".env",
    ".env.*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
)
DEFAULT_MAX_FETCH_MB = 1024


class RemoteSettings:
    """``[remote]``: automatic backup, and what is never pushed (docs/remote.md)."""

    __slots__ = ("backup", "exclude", "max_fetch_mb", "share_ignored")

    def __init__(
        self,
        backup: str = "",
        exclude: tuple[str, ...] = (),
        share_ignored: bool = False,
        max_fetch_mb: int = DEFAULT_MAX_FETCH_MB,
    ) -> None:
        self.backup = backup  # the remote pushed to after each closed entry ("": none)
        self.exclude = DEFAULT_REMOTE_EXCLUDE + exclude  # read at push time only
        self.share_ignored = share_ignored  # push the contents of files git ignores too
        self.max_fetch_mb = max_fetch_mb  # a fetch that brings more is stopped and undone


class Config:
    __slots__ = (
        "attribution_notes",
        "attribution_prompts",
        "capture_programs",
        "conversation_keep",
        "conversation_share",
        "extra_roots",
        "max_file_size",
        "project_id",
        "quicksave_max_bytes",
        "quicksave_max_files",
        "remote",
        "retention",
        "watch_exclude",
        "watch_max_delay_ms",
        "watch_on_session_start",
        "watch_quiet_ms",
        "watch_storm_files",
    )

    def __init__(
        self,
        max_file_size: int = DEFAULT_MAX_FILE_SIZE,
        extra_roots: tuple[bytes, ...] = (),
        quicksave_max_files: int = DEFAULT_QUICKSAVE_MAX_FILES,
        quicksave_max_bytes: int = DEFAULT_QUICKSAVE_MAX_BYTES,
        watch_exclude: tuple[str, ...] = DEFAULT_WATCH_EXCLUDE,
        watch_storm_files: int = DEFAULT_WATCH_STORM_FILES,
        watch_quiet_ms: int = DEFAULT_WATCH_QUIET_MS,
        watch_max_delay_ms: int = DEFAULT_WATCH_MAX_DELAY_MS,
        watch_on_session_start: bool = False,
    ) -> None:
        self.max_file_size = max_file_size
        self.extra_roots = extra_roots
        self.quicksave_max_files = quicksave_max_files
        self.quicksave_max_bytes = quicksave_max_bytes
        self.watch_exclude = watch_exclude
        self.watch_storm_files = watch_storm_files
        self.watch_quiet_ms = watch_quiet_ms
        self.watch_max_delay_ms = watch_max_delay_ms
        self.watch_on_session_start = watch_on_session_start
        # What the programs an agent runs change is recorded: the hooks keep the project's
        # watcher running and tell it of each shell call (rewind.watch.capture). On by default.
        self.capture_programs = True
        self.retention = Retention()
        # [conversation] keep: the agent's own conversation kept with each turn
        # (rewind.history.kept_conversation); off by default, it holds secrets.
        self.conversation_keep = False
        # [conversation] share: the remotes a push sends the kept conversation to (True:
        # every one); none by default, it bypasses [remote] exclude.
        self.conversation_share: bool | tuple[str, ...] = False
        self.project_id = ""  # the project's name on remotes, when rewind.toml sets it
        self.remote = RemoteSettings()
        # [attribution] notes: an authorship note (refs/notes/ai) on each commit, naming the
        # prompt behind each line an agent wrote (rewind.history.attribution); off by default,
        # it writes into the person's repository. [attribution] prompts: the prompts' text in
        # the notes too; off by default, a note goes wherever its commit goes.
        self.attribution_notes = False
        self.attribution_prompts = False

    def shares_conversation_with(self, remote: str) -> bool:
        """Whether a push to ``remote`` sends the conversation kept with each session."""
        share = self.conversation_share
        return share if isinstance(share, bool) else remote in share


# What a rewind.toml held when it was last read, as JSON in the store (rewind/config.json):
# importing tomllib costs a hook call about 15 ms (it brings re, typing, enum...), reading this
# well under one. It is used only while the file's size, times and inode are the same.
CONFIG_CACHE = os.path.join("rewind", "config.json")


def load_config(root: bytes, store_dir: str) -> Config:
    """The first ``rewind.toml`` found wins; tomllib is imported only when one exists and
    changed since it was last read."""
    for directory in (os.fsdecode(root), store_dir):
        path = os.path.join(directory, CONFIG_NAME)
        try:
            info = os.stat(path)
        except OSError:
            continue
        if not os.path.isfile(path):
            continue
        signature = [path, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]
        cache = os.path.join(store_dir, CONFIG_CACHE)
        data = _cached(cache, signature)
        if data is None:
            data = _read_toml(path)
            _remember(cache, signature, data)
        return _parse(path, data)
    return Config()


def _cached(cache: str, signature: list[object]) -> dict[str, Any] | None:
    from rewind.store.fastjson import load_object

    try:
        with open(cache, encoding="utf-8") as handle:
            found = load_object(handle.read())
    except (OSError, ValueError, RecursionError):
        return None
    data = found.get("data")
    return data if found.get("file") == signature and isinstance(data, dict) else None


def _remember(cache: str, signature: list[object], data: dict[str, Any]) -> None:
    from rewind.store.atomic import write_text_atomically
    from rewind.store.fastjson import dumps

    try:
        text = dumps({"file": signature, "data": data})
    except (TypeError, ValueError):
        return  # a TOML date or time somewhere: not JSON, read the file each time
    try:
        write_text_atomically(cache, text)
    except OSError:
        pass  # no store yet, or it cannot be written: only a cache


def _read_toml(path: str) -> dict[str, Any]:
    from rewind.errors import UserError
    from rewind.store.input_limits import BeyondLimit, load_toml

    try:
        return load_toml(path)
    except BeyondLimit as error:
        raise UserError(f"{error.of(path)}; fix or remove it.") from None
    except (OSError, ValueError) as error:  # ValueError: not UTF-8, or not TOML
        raise UserError(f"{path} cannot be read ({error}); fix or remove it.") from None


def _parse(path: str, data: dict[str, Any]) -> Config:
    from rewind.errors import UserError

    max_size = data.get("max_file_size", DEFAULT_MAX_FILE_SIZE)
    roots = data.get("extra_roots", [])
    if not isinstance(max_size, int) or max_size < 0:
        raise UserError(f"{path}: max_file_size must be a number of bytes, like 16777216.")
    if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
        raise UserError(f'{path}: extra_roots must be a list of directories, like ["/data"].')
    max_files = data.get("quicksave_max_files", DEFAULT_QUICKSAVE_MAX_FILES)
    max_bytes = data.get("quicksave_max_bytes", DEFAULT_QUICKSAVE_MAX_BYTES)
    if not _is_count(max_files):
        raise UserError(f"{path}: quicksave_max_files must be a number of files, like 2000.")
    if not _is_count(max_bytes):
        raise UserError(f"{path}: quicksave_max_bytes must be a number of bytes, like 209715200.")
    config = Config(
        max_file_size=max_size,
        extra_roots=tuple(os.fsencode(os.path.realpath(os.path.expanduser(r))) for r in roots),
        quicksave_max_files=max_files,
        quicksave_max_bytes=max_bytes,
    )
    _read_watch_keys(path, data, config)
    config.retention = _read_retention(path, data.get("retention", {}))
    config.remote = _read_remote(path, data.get("remote", {}))
    config.conversation_keep, config.conversation_share = _read_conversation(
        path, data.get("conversation", {})
    )
    config.attribution_notes, config.attribution_prompts = _read_attribution(
        path, data.get("attribution", {})
    )
    project_id = data.get("project_id", "")
    if not isinstance(project_id, str) or (project_id and not usable_id(project_id)):
        raise UserError(
            f"{path}: project_id must be letters, digits, '-', '_' or '.', at most 64 of them, "
            'like "calc-2b7f0e".'
        )
    config.project_id = project_id
    return config


def usable_id(name: str) -> bool:
    """Whether ``name`` can be one component of a ref on any remote, and a folder's name."""
    allowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."
    return (
        0 < len(name) <= 64
        and name[0].isalnum()
        and all(character in allowed for character in name)
        and ".." not in name
        and not name.endswith((".", ".lock"))
    )


def _read_remote(path: str, table: object) -> RemoteSettings:
    from rewind.errors import UserError

    if not isinstance(table, dict):
        raise UserError(f"{path}: remote must be a table ([remote]).")
    unknown = sorted(set(table) - {"backup", "exclude", "share_ignored", "max_fetch_mb"})
    if unknown:
        raise UserError(
            f"{path}: [remote] has no key {unknown[0]!r}; its keys are backup, exclude, "
            "share_ignored and max_fetch_mb."
        )
    backup = table.get("backup", "")
    exclude = table.get("exclude", [])
    share_ignored = table.get("share_ignored", False)
    max_fetch_mb = table.get("max_fetch_mb", DEFAULT_MAX_FETCH_MB)
    if not isinstance(backup, str) or (backup and not usable_id(backup)):
        raise UserError(f'{path}: remote.backup must name a remote, like "backup".')
    if not isinstance(exclude, list) or not all(isinstance(g, str) and g for g in exclude):
        raise UserError(f'{path}: remote.exclude must be a list of globs, like ["secrets/*"].')
    if not isinstance(share_ignored, bool):
        raise UserError(f"{path}: remote.share_ignored must be true or false.")
    if not _is_count(max_fetch_mb) or max_fetch_mb < 1:
        raise UserError(f"{path}: remote.max_fetch_mb must be a number of MB, like 1024.")
    return RemoteSettings(backup, tuple(exclude), share_ignored, max_fetch_mb)


def _read_attribution(path: str, table: object) -> tuple[bool, bool]:
    """``[attribution]``: ``notes``, whether each commit gets an authorship note, and
    ``prompts``, whether the notes hold the prompts' text."""
    from rewind.errors import UserError

    if not isinstance(table, dict):
        raise UserError(f"{path}: attribution must be a table ([attribution]).")
    unknown = sorted(set(table) - {"notes", "prompts"})
    if unknown:
        raise UserError(
            f"{path}: [attribution] has no key {unknown[0]!r}; its keys are notes and prompts."
        )
    values = []
    for key in ("notes", "prompts"):
        value = table.get(key, False)
        if not isinstance(value, bool):
            raise UserError(f"{path}: attribution.{key} must be true or false.")
        values.append(value)
    return values[0], values[1]


def _read_conversation(path: str, table: object) -> tuple[bool, bool | tuple[str, ...]]:
    """``[conversation]``: ``keep``, whether the prompt hooks keep the agent's conversation,
    and ``share``, the remotes a push sends it to (true: every one)."""
    from rewind.errors import UserError

    if not isinstance(table, dict):
        raise UserError(f"{path}: conversation must be a table ([conversation]).")
    unknown = sorted(set(table) - {"keep", "share"})
    if unknown:
        raise UserError(
            f"{path}: [conversation] has no key {unknown[0]!r}; its keys are keep and share."
        )
    keep = table.get("keep", False)
    if not isinstance(keep, bool):
        raise UserError(f"{path}: conversation.keep must be true or false.")
    share = table.get("share", False)
    if isinstance(share, list) and all(isinstance(n, str) and usable_id(n) for n in share):
        return keep, tuple(share)
    if not isinstance(share, bool):
        raise UserError(
            f'{path}: conversation.share must be true, false or a list of remotes, like ["backup"].'
        )
    return keep, share


def _read_retention(path: str, table: object) -> Retention:
    from rewind.errors import UserError

    if not isinstance(table, dict):
        raise UserError(f"{path}: retention must be a table ([retention]).")
    defaults = Retention()
    enabled = table.get("enabled", defaults.enabled)
    days = table.get("keep_days", defaults.keep_days)
    last = table.get("keep_last", defaults.keep_last)
    size = table.get("max_size_mb", defaults.max_size_mb)
    if not isinstance(enabled, bool):
        raise UserError(f"{path}: retention.enabled must be true or false.")
    if isinstance(days, bool) or not isinstance(days, int | float) or days < 0:
        raise UserError(f"{path}: retention.keep_days must be a number of days, like 30.")
    if not _is_count(last) or last < 1:
        raise UserError(f"{path}: retention.keep_last must be a number of entries, like 20.")
    if not _is_count(size):
        raise UserError(f"{path}: retention.max_size_mb must be a number of MB, like 2048.")
    unknown = sorted(set(table) - {"enabled", "keep_days", "keep_last", "max_size_mb"})
    if unknown:
        raise UserError(
            f"{path}: [retention] has no key {unknown[0]!r}; its keys are enabled, keep_days, "
            "keep_last and max_size_mb."
        )
    return Retention(enabled, float(days), last, size)


def _read_watch_keys(path: str, data: dict[str, object], config: Config) -> None:
    """The watch mode's keys (docs/watch.md), checked like the others."""
    from rewind.errors import UserError

    exclude = data.get("watch_exclude", list(DEFAULT_WATCH_EXCLUDE))
    if not isinstance(exclude, list) or not all(isinstance(g, str) and g for g in exclude):
        raise UserError(f'{path}: watch_exclude must be a list of globs, like ["node_modules"].')
    counts = {
        "watch_storm_files": (DEFAULT_WATCH_STORM_FILES, "a number of files, like 1000"),
        "watch_quiet_ms": (DEFAULT_WATCH_QUIET_MS, "a number of milliseconds, like 150"),
        "watch_max_delay_ms": (DEFAULT_WATCH_MAX_DELAY_MS, "a number of milliseconds, like 2000"),
    }
    config.watch_exclude = tuple(exclude)
    for key, (default, example) in counts.items():
        value = data.get(key, default)
        if not _is_count(value):
            raise UserError(f"{path}: {key} must be {example}.")
        setattr(config, key, value)
    switches = ("watch_on_session_start", "capture_programs")
    for key in switches:
        value = data.get(key, getattr(config, key))
        if not isinstance(value, bool):
            raise UserError(f"{path}: {key} must be true or false.")
        setattr(config, key, value)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
