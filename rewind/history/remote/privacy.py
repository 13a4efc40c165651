"""Which paths' contents stay on this machine when sessions are pushed, and the answers of git's
that the exports already made depend on.

A path is **private** (its contents never leave; rewind.history.remote.export holds them back) when:

- it lies outside the project root (``extra_roots``): it names this machine's folders;
- it matches ``[remote] exclude`` or the built-in list (``.env``, keys, credentials), with
  gitignore's syntax, in any case (rewind.history.remote.exclude_patterns);
- git ignores it in the project (``git check-ignore``; tracked files never count), or will not
  judge it (it lies beyond a symbolic link: a folder replaced by one since it was recorded),
  unless ``[remote] share_ignored``. A path git will not judge is held back alone: the others
  are still asked about, and the push says which it held back and why.

The first two follow from the settings, whose :attr:`SharingPolicy.digest` names the exports.
The third is git's answer, which changes without rewind seeing it: a line added to a
``.gitignore``, a ``git rm --cached``, a ``git init``. So every answer an export depended on is
kept, in ``<store>/rewind/exported-privacy``, under a **generation**; each push asks git again
about every path kept (one ``git check-ignore``), and when one answer changed, or the record
is lost or disagrees with itself, a new generation starts. The :attr:`SharingPolicy.key`
(the settings and the generation) names the exports (rewind.history.remote.export) and what each
remote was sent (rewind.history.remote.push): under a new one every history is exported again and
every session is sent again, so that a file ignored after it was pushed is held back from every
later push, to any remote, and the refs of a remote that had it no longer reach it. The check
costs one git process over the paths ever exported, whatever the number of entries.
"""

from __future__ import annotations

import os

from rewind.errors import UserError
from rewind.history.remote.exclude_patterns import BadPattern, ExcludePatterns
from rewind.store.digest import sha1_hex
from rewind.store.fastjson import dumps
from rewind.store.repository import Store

PRIVACY_RECORD = "exported-privacy"
# How the patterns are read: exports made under another reading are made again.
PATTERN_SYNTAX = "gitignore, any case"
# git's global pathspec settings: check-ignore refuses them all, --literal-pathspecs the others.
_PATHSPEC_VARIABLES = (
    "GIT_LITERAL_PATHSPECS",
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS",
)


class SharingPolicy:
    """Which paths' contents stay on this machine (see the module's doc)."""

    def __init__(self, store: Store) -> None:
        settings = store.config.remote
        self.store = store
        self.settings = settings.exclude
        self.share_ignored = settings.share_ignored
        try:
            self.patterns = ExcludePatterns(settings.exclude)
        except BadPattern as error:
            raise UserError(f"rewind.toml: remote.exclude: {error}; fix it.") from None
        self.answers = GitAnswers(store)

    @property
    def digest(self) -> str:
        """Names the settings: exports made under others are made again."""
        settings = {
            "exclude": list(self.settings),
            "share_ignored": self.share_ignored,
            "syntax": PATTERN_SYNTAX,
        }
        return sha1_hex(dumps(settings).encode())

    @property
    def key(self) -> str:
        """Names the settings and git's answers (asked again on first use): exports and pushes
        made under another key are made again."""
        if not self.share_ignored:
            self.answers.check()
        return f"{self.digest}/{self.answers.generation}"

    def private(self, paths: set[bytes]) -> dict[bytes, str]:
        """The private ones among ``paths``, each with why."""
        found: dict[bytes, str] = {}
        for path in paths:
            if path.startswith(b"/"):
                found[path] = "outside the project"
                continue
            pattern = self.patterns.matching(os.fsdecode(path))
            if pattern is not None:
                found[path] = f"matches {pattern}"
        if not self.share_ignored:
            found.update(self.answers.held_back(paths - set(found)))
        return found

    @property
    def unjudged(self) -> dict[bytes, str]:
        """The paths git would not judge during this run (held back), each with why."""
        return self.answers.unjudged

    def save(self) -> None:
        """Keeps git's answers that this push's exports depend on (before the exports are)."""
        self.answers.save()


class GitAnswers:
    """git's answers (ignored or not) about the paths the exports depend on, kept for one
    generation (see the module's doc). Only answers git gave during this run are used."""

    def __init__(self, store: Store) -> None:
        self.path = store.state_path(PRIVACY_RECORD)
        self.root = store.root.path
        self.generation, self.kept = _load(self.path)
        self.fresh = not self.generation  # a new generation, written whole by save()
        if self.fresh:
            self.generation = os.urandom(8).hex()
        self.current: dict[bytes, bool] = {}  # asked during this run (True: held back)
        self.unjudged: dict[bytes, str] = {}  # the ones git would not judge, with why
        self.used: set[bytes] = set()  # the paths whose answers this run's exports used
        self._checked = False

    def check(self) -> None:
        """Asks git again about every path kept (once); a changed answer starts a new
        generation."""
        if self._checked:
            return
        self._checked = True
        if not self.kept:
            return
        paths = sorted(self.kept)
        verdict = ask_git(self.root, paths)
        self.unjudged.update(verdict.unjudged)
        now = {path: path in verdict.held_back for path in paths}
        if now != self.kept:
            self.generation = os.urandom(8).hex()
            self.fresh = True
        self.current.update(now)

    def held_back(self, paths: set[bytes]) -> dict[bytes, str]:
        """The ones among ``paths`` that git ignores or would not judge, each with why (asked
        once per path and run)."""
        self.check()
        self.used.update(paths)
        unknown = sorted(paths - set(self.current))
        if unknown:
            verdict = ask_git(self.root, unknown)
            self.unjudged.update(verdict.unjudged)
            self.current.update((path, path in verdict.held_back) for path in unknown)
        return {
            path: self.unjudged.get(path, "ignored by git") for path in paths if self.current[path]
        }

    def save(self) -> None:
        """Keeps the answers this run's exports used: a new generation's record holds only
        those (exports made under it depend on nothing else), a kept one gains them."""
        from rewind.store.atomic import write_text_atomically

        added = {path: answer for path, answer in self.current.items() if path not in self.kept}
        if self.fresh:
            used = {path: answer for path, answer in self.current.items() if path in self.used}
            write_text_atomically(self.path, f"privacy {self.generation}\n" + _lines(used))
            self.kept = used
            self.fresh = False
        elif added:
            with open(self.path, "a", encoding="ascii") as handle:
                handle.write(_lines(added))
            self.kept.update(added)


def _lines(answers: dict[bytes, bool]) -> str:
    return "".join(f"{int(answer)} {path.hex()}\n" for path, answer in sorted(answers.items()))


def _load(path: str) -> tuple[str, dict[bytes, bool]]:
    """The generation and the answers kept; no generation when there is no record, or it
    cannot be read, or it holds two answers for one path (two pushes that asked git on either
    side of a change): a new one starts."""
    kept: dict[bytes, bool] = {}
    try:
        with open(path, encoding="ascii") as handle:
            header = handle.readline().split()
            if len(header) != 2 or header[0] != "privacy" or not header[1].isalnum():
                return "", {}
            for line in handle:
                answer, _, name = line.strip().partition(" ")
                found = bytes.fromhex(name)
                ignored = answer == "1"
                if answer not in ("0", "1") or not found or kept.get(found, ignored) != ignored:
                    return "", {}
                kept[found] = ignored
    except (OSError, ValueError):
        return "", {}
    return header[1], kept


class GitVerdict:
    """git's answer about some paths: the ones it ignores, and the ones it would not judge,
    each with why (held back too: holding back too much is the safe side)."""

    __slots__ = ("ignored", "unjudged")

    def __init__(self) -> None:
        self.ignored: set[bytes] = set()
        self.unjudged: dict[bytes, str] = {}

    @property
    def held_back(self) -> set[bytes]:
        return self.ignored | set(self.unjudged)


def ask_git(root: bytes, paths: list[bytes]) -> GitVerdict:
    """Which of ``paths`` git ignores in the repository at ``root`` (none outside a
    repository), and which it would not judge. Tracked files are never ignored; asked
    read-only.

    git refuses a whole question for one path it will not judge: one beyond a symbolic link
    (a folder replaced by a link since the path was recorded), or another it refuses. Such a
    path must not hold back every other one: the ones beyond a link are set apart first, and
    when git still refuses, the paths are asked again in halves until the ones it refuses are
    found (at most :data:`_GIT_RUNS` runs; what is left then is held back unjudged).

    git takes paths as pathspecs, which it may read as more than a name: ``:memo`` as magic,
    ``app/[slug]/x.log`` as a glob that, in check-ignore's look-up of tracked files, matches a
    tracked ``app/s/x.log`` and so is "not ignored". check-ignore refuses literal pathspecs, so
    each path is asked as ``./PATH`` (no magic) with ``--no-index`` (no look-up), and the
    ignored ones are then looked up, literally, among the tracked files."""
    verdict = GitVerdict()
    if not paths or not os.path.lexists(os.path.join(root, b".git")):
        return verdict
    links: dict[bytes, bool] = {}
    asked = []
    for path in paths:
        link = _symbolic_link_above(root, path, links)
        if link is None:
            asked.append(path)
        else:
            shown = link.decode("utf-8", "backslashreplace")
            verdict.unjudged[path] = f"git cannot judge it: {shown} is a symbolic link"
    ignored = _ignored(root, asked, verdict)
    verdict.ignored = ignored - _tracked(root, sorted(ignored))
    return verdict


# The most check-ignore runs one question may take while git refuses some of its paths.
_GIT_RUNS = 40


def _ignored(root: bytes, paths: list[bytes], verdict: GitVerdict) -> set[bytes]:
    """The ones among ``paths`` that check-ignore says git ignores; the ones it refuses to
    judge go to ``verdict.unjudged`` (see :func:`ask_git`)."""
    ignored: set[bytes] = set()
    waiting = [paths] if paths else []
    runs = 0
    while waiting:
        group = waiting.pop()
        if runs >= _GIT_RUNS:
            why = "git cannot judge it: it refused too many of the paths asked"
            verdict.unjudged.update(dict.fromkeys(group, why))
            continue
        runs += 1
        asked = b"".join(b"./" + path + b"\0" for path in group)
        answer = _git(root, ["check-ignore", "--no-index", "-z", "--stdin"], asked, (0, 1))
        if isinstance(answer, bytes):
            # git answers with each path as it was asked: ./PATH
            ignored.update(path[2:] for path in answer.split(b"\0") if path.startswith(b"./"))
        elif len(group) == 1 or answer.ran is False:
            why = f"git cannot judge it: {answer.why}"
            verdict.unjudged.update(dict.fromkeys(group, why))
        else:
            half = len(group) // 2
            waiting += [group[half:], group[:half]]
    return ignored


def _symbolic_link_above(root: bytes, path: bytes, links: dict[bytes, bool]) -> bytes | None:
    """The folder of ``path`` (relative to ``root``) that is a symbolic link, if one is:
    git will not judge a path beyond one. ``links`` remembers the folders looked at."""
    folder = b""
    for part in path.split(b"/")[:-1]:
        folder = folder + b"/" + part if folder else part
        link = links.get(folder)
        if link is None:
            link = links[folder] = os.path.islink(os.path.join(root, folder))
        if link:
            return folder
    return None


def _tracked(root: bytes, paths: list[bytes]) -> set[bytes]:
    """The ones among ``paths`` that git tracks (none when git cannot say: they stay held
    back). Named on command lines of at most ~30,000 bytes (Windows' limit is 32,767)."""
    tracked: set[bytes] = set()
    start = 0
    while start < len(paths):
        end, size = start, 0
        while end < len(paths) and (end == start or size + len(paths[end]) < 30_000):
            size += len(paths[end]) + 1
            end += 1
        arguments = ["--literal-pathspecs", "ls-files", "-z", "--cached", "--"]
        listed = _git(root, [*arguments, *map(os.fsdecode, paths[start:end])], b"", (0,))
        if not isinstance(listed, bytes):
            return set()
        tracked.update(listed.split(b"\0"))
        start = end
    return tracked.intersection(paths)


class GitRefusal:
    """Why git gave no answer: it did not run (or finish), or it exited with an error."""

    __slots__ = ("ran", "why")

    def __init__(self, why: str, ran: bool) -> None:
        self.why = why
        self.ran = ran


def _git(
    root: bytes, arguments: list[str], given: bytes, fine: tuple[int, ...]
) -> bytes | GitRefusal:
    """What ``git ARGUMENTS`` prints in ``root``, or why there is no answer: it could not run,
    or it exited with another status than ``fine`` (for check-ignore, 0: some are ignored, 1:
    none is; 128: a path beyond a symlink, no repository after all...)."""
    from rewind.store.git_program import GitFailed, last_error_line, run_git

    try:
        completed = run_git(
            None,
            "-C",
            root,
            *arguments,
            what="asking git which paths it ignores or tracks",
            input=given,
            timeout=120,
            check=False,
            variables=dict.fromkeys(_PATHSPEC_VARIABLES),
        )
    except GitFailed as error:
        return GitRefusal(error.cause or str(error), ran=False)
    if completed.returncode in fine:
        return completed.stdout
    return GitRefusal(last_error_line(completed.stderr).rstrip("."), ran=True)
