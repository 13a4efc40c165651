"""Watch mode: record changes made outside the tracked edit tools (docs/watch.md).

``rewind watch`` runs a watchdog observer over the project root; every file created,
modified, deleted or moved there, except what the ignore rules leave out, is recorded in the
session's open turn as an *external* change. The modules, one reason to change each:

- :mod:`rewind.watch.ignore`: which paths are never recorded;
- :mod:`rewind.watch.bursts`: coalescing a path's events into one change, and storms;
- :mod:`rewind.watch.preimages`: the state a path had before the change, when it is known;
- :mod:`rewind.watch.recorder`: writing a batch of changes into the session;
- :mod:`rewind.watch.observer`: the observer and the loop that drains its events;
- :mod:`rewind.watch.pidfile`: one watcher per project, ``--detach``, ``--stop``, ``--status``.

Only :mod:`rewind.watch.pidfile` is imported by the hooks (to start or stop a detached
watcher); it imports nothing heavy. The others may import watchdog; they read the project's git
repository through :mod:`rewind.store.project_repository` (pygit2).
"""
