"""Settings from ``rewind.toml`` (project root, then the store); defaults need no file at all."""

from __future__ import annotations

import os

CONFIG_NAME = "rewind.toml"
DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024


class Config:
    __slots__ = ("extra_roots", "max_file_size")

    def __init__(
        self, max_file_size: int = DEFAULT_MAX_FILE_SIZE, extra_roots: tuple[bytes, ...] = ()
    ) -> None:
        self.max_file_size = max_file_size
        self.extra_roots = extra_roots


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
    return Config(
        max_file_size=max_size,
        extra_roots=tuple(os.fsencode(os.path.realpath(os.path.expanduser(r))) for r in roots),
    )
