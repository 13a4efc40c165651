"""Which files a shell command may create, overwrite or delete: the quicksave before it runs.

Agents change files through their shell too. Before a command runs, the hook asks
``paths_at_risk(command, cwd, limits)`` and records the state of every path it returns, so a
restore brings them back (a path that does not exist yet is recorded as absent: what the command
creates is deleted again). The command is read, never run.

Understood:

- the shell's structure: ``;``, ``&&``, ``||``, ``|``, ``&``, newlines, comments, subshells
  ``( ... )`` (a ``cd`` inside does not leak out), ``cd``/``pushd``/``popd``, ``VAR=value``
  and ``export`` (later ``$VAR``, ``${VAR}`` and ``~`` are expanded), brace expansion
  (``file{,.bak}``), ``for VAR in WORDS`` (later commands that use ``$VAR`` are read once per
  word), here-documents (their bodies are not read as commands, but kept as the standard input
  of the command they feed, as are here-strings and ``< FILE``; ``cat > FILE <<EOF`` is
  remembered for the rest of the line), ``$( ... )`` and ``<( ... )`` (the commands inside are
  read; the word they make is unknown), ``bash -c``/``sh -c STRING`` and ``eval``;
- prefixes: leading ``VAR=x``, ``env``, ``sudo``, ``doas``, ``command``, ``builtin``, ``exec``,
  ``nohup``, ``time``, ``nice``, ``timeout``, ``stdbuf``, ``ionice``, and the keywords ``if``,
  ``then``, ``do``, ``else``, ``!``, ``{`` ...;
- globs (``*.txt``, ``src/**``), expanded against the file system as the shell would;
- output redirections ``>``, ``>>``, ``>|``, ``&>``, ``&>>``, ``>&FILE``, ``<>`` (not
  ``/dev/...``, not fd duplications like ``2>&1``);
- ``rm`` (``-r`` directories expanded to the files inside), ``unlink``, ``shred``; both ends of
  ``mv``, the destination of ``cp`` (``-r`` source directories mirrored into it), ``ln`` and
  ``install`` (``-t DIR`` and ``-T`` too); ``sed -i``/``--in-place`` (and its backup files),
  ``perl -i``, ``gawk -i inplace``; ``tee``, ``truncate``, ``touch``, ``dd of=``, ``chmod``
  (``-R`` expanded; a symlink operand: its target);
- ``find ... -delete`` and ``-exec``/``-execdir``/``-ok``: the files the expression may match
  (``-name``, ``-iname``, ``-path``, ``-type``, ``-maxdepth`` and ``-mindepth`` narrow them when
  the expression has no ``-o``, ``,`` or parentheses); a command it runs that is understood here
  (``rm``, ``sed -i``, ``mv`` ...) is read once per match, any other may change each match (and
  everything under a matching directory);
- patches: Codex's ``apply_patch`` (``applypatch``; the patch as operand or standard input),
  ``patch`` and ``git apply`` (a unified diff from standard input or a file): every file the
  patch names (``rewind.patches`` reads them), relative to where the command applies it;
- git (``-C DIR`` and ``--work-tree`` too): ``checkout`` of paths or with ``-f``/``-m``,
  ``restore`` (not ``--staged`` alone), ``reset --hard``/``--merge``/``--keep``, ``clean``
  (``-x``/``-X`` add ignored files), ``stash`` (push, save, ``-u``, ``-a``; ``pop``/``apply``:
  the stash's files), ``switch -f``/``--discard-changes``/``-m``, ``rm``, ``mv``: every file git
  reports modified, staged or untracked (``rewind.store.git_status.changed_paths``), within the
  pathspecs; with another commit (``reset --hard REF``, ``checkout REF -- PATH``,
  ``restore -s REF``) also every file that differs from it.

Not understood (nothing is recorded; a warning says so where it matters): the files ``tar x``,
``unzip`` and ``rsync`` write; a patch read from a standard input the line does not hold; the
file names ``xargs`` reads from its input; paths that come from ``$( ... )``, backticks,
unknown variables, ``read`` or positional parameters; ``cd`` to such a directory (relative
paths after it); what programs do by themselves
(``python script.py``, ``npm install``, ``make``); ``sed``'s ``w`` command, ``find -regex``;
``case`` statements and ``for (( ... ))`` (the whole command is then not understood, like one
with unbalanced quotes). The line is read against the file system as it is before it runs:
what an earlier part creates is unknown to a later one (but ``mv``/``cp`` record their
destination even for a source that does not exist yet). Quoting is not remembered, so a
quoted operator (``grep '|' f``) is read as one, and a quoted glob is expanded too (both can
only record more). Paths inside ``.git`` and under ``/dev``, ``/proc`` and ``/sys`` are never
returned.

Expanding directories (``rm -r``, ``chmod -R``, ``cp -r``, ``mv`` of a directory, ``find``, git's
lists of ignored files or of files that differ from a commit) stops at ``limits.max_files``
files or ``limits.max_bytes`` bytes for the whole command, with a warning naming the directory.
Walks never follow symlinks (a symlink is itself a path to record) and skip ``.git``.

A command line is read up to ``prepass.MAX_READ_LENGTH`` characters (here-document bodies and
comments aside), cut between two commands, and up to ``analysis.MAX_COMMANDS_READ`` commands (a
loop's once per run); past either, the rest is not read, with a warning. Reading is linear in
the length read.

The modules, in the order a command goes through them: ``prepass``, ``lexer`` and ``parser``
(text to commands); ``interpreter`` (the shell's structure, prefixes, ``bash -c``) with
``shell`` (the directory and variables; ``braces``, ``words``); the handlers it calls by name:
``shell_builtins``, ``removal``, ``copy_move``, ``in_place``, ``file_writers``,
``patch_commands``, ``git_commands`` (with ``git_risk``, which asks git), ``find``,
``unknown_writes``
(``file_commands`` names the ones that read file operands, ``options`` reads options);
``analysis`` holds the paths found, the limits and the directory walks. ``at_risk`` puts it
together; ``plan`` holds the limits and the plan.

This runs on the hook path: it imports only ``os`` (and ``stat``, which ``os`` loads; not
``shlex``, which loads ``re``); ``glob`` once a word has a wildcard, ``subprocess`` once a git
command needs it.
"""

from __future__ import annotations

from rewind.quicksave.at_risk import paths_at_risk
from rewind.quicksave.plan import QuicksaveLimits, QuicksavePlan, limits_from

__all__ = ["QuicksaveLimits", "QuicksavePlan", "limits_from", "paths_at_risk"]
