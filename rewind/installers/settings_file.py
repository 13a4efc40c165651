"""An agent's JSON settings file as rewind reads and writes it: read as JSONC (comments,
trailing commas), kept as text so that an edit (:mod:`rewind.installers.text_edits`) changes
only the bytes it adds or takes out, a byte order mark kept, and written back atomically with
the file's permissions; and whether someone committed it (then install leaves rewind's hooks
there as they are).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass

from rewind.errors import UserError
from rewind.installers import jsonc, text_edits
from rewind.store.atomic import replace_file
from rewind.store.git_program import GitFailed, run_git
from rewind.store.input_limits import SETTINGS_BYTES, BeyondLimit, read_at_most, too_deep

JsonObject = dict[str, object]
# The top-level key every agent keeps its hooks under.
HOOKS = "hooks"
BOM = "\ufeff"


@dataclass
class SettingsFile:
    """A settings file as read: its text (comments and all), its data, and the tree of where
    each value sits in the text, which edits splice into."""

    path: str
    data: JsonObject
    exists: bool
    text: str = ""
    indent: str = "  "
    mode: int | None = None
    # The key the agent keeps its hooks under; None: the events are the file's own top-level
    # keys (Droid's ``hooks.json``).
    hooks_key: str | None = HOOKS

    @classmethod
    def read(cls, path: str) -> SettingsFile:
        """The file's content (an empty object when it is missing or empty); a file that is not
        a JSON object (comments and trailing commas allowed), or is past the limits
        (rewind.store.input_limits: SETTINGS_BYTES, DEPTH), is refused."""
        try:
            raw = read_at_most(path, SETTINGS_BYTES, "a settings file")
            text = raw.decode("utf-8")
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            return cls(path, {}, exists=False)
        except BeyondLimit as error:
            raise UserError(f"{error.of(path)}; make it smaller, then run again.") from None
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or str(error)
            raise UserError(f"{path} could not be read ({reason}); fix it and run again.") from None
        body = text[1:] if text.startswith(BOM) else text
        if not body.strip():
            return cls(path, {}, exists=True, text=text, mode=mode)
        try:
            root = jsonc.parse(body)
        except jsonc.JsoncTooDeep as error:
            raise UserError(
                f"{too_deep().of(path)} (at line {error.line} column {error.column}); fix it, "
                "then run the command again."
            ) from None
        except jsonc.JsoncError as error:
            raise UserError(
                f"{path} is not valid JSON ({error.message} at line {error.line} column "
                f"{error.column}); fix it, then run the command again."
            ) from None
        if not isinstance(root.value, dict):
            raise UserError(f"{path} does not hold a JSON object; fix it, then run again.")
        indent = re.search(r"^([ \t]+)[\"}\]]", body, re.MULTILINE)
        return cls(
            path,
            root.value,
            exists=True,
            text=text,
            indent=indent.group(1) if indent else "  ",
            mode=mode,
        )

    def document(self) -> text_edits.Document:
        """The text to edit: ``{}`` when the file is missing or blank (ended as its blank lines
        are: the edits write each line ending as the document's first one)."""
        body = self.text[1:] if self.text.startswith(BOM) else self.text
        if not body.strip():
            newline = "\r\n" if "\r\n" in body else "\n"
            return text_edits.Document("{}" + newline, self.indent, self.path)
        return text_edits.Document(body, self.indent, self.path)

    def take(self, edited: text_edits.Document) -> None:
        """Makes the edited document this file's content."""
        self.text = (BOM if self.text.startswith(BOM) else "") + edited.text
        value = edited.root.value
        assert isinstance(value, dict)
        self.data = value

    def write(self) -> list[str]:
        """Replaces the file atomically, with its permissions (the real file, through a link);
        returns the directories it had to create, outermost first."""
        target = os.path.realpath(self.path)
        created = missing_directories(os.path.dirname(target))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        mode = self.mode if self.mode is not None else 0o666 & ~_umask()
        replace_file(os.fsencode(target), self.text.encode("utf-8"), mode)
        return created

    def hooks_object(self, create: bool) -> JsonObject | None:
        if self.hooks_key is None:
            return self.data
        hooks = self.data.get(self.hooks_key)
        if hooks is not None and not isinstance(hooks, dict):
            raise UserError(
                f'"{self.hooks_key}" in {self.path} is not a JSON object; fix it and run again.'
            )
        return hooks

    def hooks_data(self) -> JsonObject:
        """The object holding the events (empty when it is missing or not an object)."""
        hooks = self.data if self.hooks_key is None else self.data.get(self.hooks_key)
        return hooks if isinstance(hooks, dict) else {}


def missing_directories(directory: str) -> list[str]:
    """The folders of ``directory`` that do not exist yet, outermost first (an install creates
    them, and an uninstall removes those it created)."""
    missing: list[str] = []
    while directory and not os.path.exists(directory):
        missing.insert(0, directory)
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return missing


def delete_created(path: str, directories: object) -> None:
    """Deletes a file install created (the real file, through a link), then the directories
    it created for it, innermost first, as long as they are empty."""
    os.unlink(os.path.realpath(path))
    for directory in reversed(directories if isinstance(directories, list) else []):
        try:
            os.rmdir(str(directory))
        except OSError:
            break  # something else is in it


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def tracked_by_git(project: str, path: str) -> bool:
    """Whether git tracks ``path`` in the project's repository (someone committed it)."""
    try:
        done = run_git(
            None,
            "--literal-pathspecs",
            "ls-files",
            "--error-unmatch",
            "--",
            path,
            what="asking git whether it tracks a file",
            cwd=project,
            timeout=60,
            check=False,
            repository_from_environment=True,
        )
    except GitFailed:
        return False
    return done.returncode == 0
