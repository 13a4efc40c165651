"""An index of every session's entries, so that reads cost what they need, not the history.

The commits stay the truth; the index is a cache of them kept in the store
(``<store>/rewind/index.sqlite``), maintained incrementally and rebuilt from the commits when
it is missing, damaged or of another format:

- ``entries``: per session and entry number, the entry's commit and its turn.json record,
  with the fields ``log`` filters on (kind, time, prompt, labels);
- ``touches``: per path, the entries (of every session) that recorded it: ``log --path`` and
  the conflict check of a restore read it instead of every other session's history;
- ``tips``: the commit each session was indexed up to;
- ``diffstats``: +/- line counts per pair of contents, computed once by the first reader that
  needs them (the hook path never diffs) and kept;
- ``blames``: per path, where each line of its newest recorded version came from, as
  ``rewind blame`` last worked it out (:mod:`rewind.history.insight.blame`): the versions it walked
  (``chain``) and one code per line (``origins``), so that the next blame diffs only what was
  recorded since.

Writers never update it: hooks stay free of sqlite. A reader brings a session up to date first
(:meth:`~rewind.history.index.sync.SyncedIndex.sync`): it walks back from the session's tip to
the first commit it already has, so the cost grows with what was recorded since the last read.
Concurrent readers write the same rows; sqlite serialises them.

The modules, each built on the one before:

- :mod:`~rewind.history.index.database`: the file, its tables, opening it (made again when it
  is damaged or of another format; in memory when it cannot be written);
- :mod:`~rewind.history.index.rows`: how an entry is kept in a row of ``entries``;
- :mod:`~rewind.history.index.sync`: keeping the rows up with the sessions' commits;
- :mod:`~rewind.history.index.caches`: the line counts and blames kept for readers;
- :mod:`~rewind.history.index.queries`: :class:`~rewind.history.index.queries.EntryIndex`,
  the index readers open, and the questions they ask it.
"""
