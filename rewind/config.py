"""Settings from ``rewind.toml`` (project root, then the store); defaults need no file at all."""

from __future__ import annotations

import os

CONFIG_NAME = "rewind.toml"
DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024
# What expanding directories may add to the quicksave of one shell command (rewind.quicksave).
DEFAULT_QUICKSAVE_MAX_FILES = 2000
DEFAULT_QUICKSAVE_MAX_BYTES = 200 * 1024 * 1024


class Config:
    __slots__ = ("extra_roots", "max_file_size", "quicksave_max_bytes", "quicksave_max_files")

    def __init__(
        self,
        max_file_size: int = DEFAULT_MAX_FILE_SIZE,
        extra_roots: tuple[bytes, ...] = (),
        quicksave_max_files: int = DEFAULT_QUICKSAVE_MAX_FILES,
        quicksave_max_bytes: int = DEFAULT_QUICKSAVE_MAX_BYTES,
    ) -> None:
        self.max_file_size = max_file_size
        self.extra_roots = extra_roots
        self.quicksave_max_files = quicksave_max_files
        self.quicksave_max_bytes = quicksave_max_bytes


def load_config(root: bytes, store_dir: str) -> Config:
    """The first ``rewind.toml`` found wins; tomllib is imported only when one exists."""
    for directory in (os.fsdecode(root), store_dir):
        path = os.path.join(directory, CONFIG_NAME)
        if os.path.isfile(path):
            return _parse(path)
    return Config()


def _parse(path: str) -> Config:
    import tomllib

    from rewind.errors import UserError

    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise UserError(f"{path} cannot be read ({error}); fix or remove it.") from None
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
    return Config(
        max_file_size=max_size,
        extra_roots=tuple(os.fsencode(os.path.realpath(os.path.expanduser(r))) for r in roots),
        quicksave_max_files=max_files,
        quicksave_max_bytes=max_bytes,
    )


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
