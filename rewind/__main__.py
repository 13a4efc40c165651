"""``python -m rewind``: the command line (rewind.cli).

Run as a script, ``PYTHON -S PACKAGE/__main__.py hook AGENT`` is the command ``rewind install``
writes for an agent's command hooks (rewind.installers.Context.hook_runner): the same as
``rewind hook AGENT`` without the interpreter's site processing (site-packages and their
``.pth`` files, a few milliseconds of every hook's process), which an event handed to the
resident recorder never needs. The folder that holds this package is put on ``sys.path`` in
its place; a hook that records in its own process processes the site then
(rewind.commands.hook.with_site_packages), and any other command at once, so each runs as
``rewind`` runs it.
"""

import sys


def _package_on_path() -> None:
    """This package's folder's parent first on ``sys.path``, instead of this file's folder,
    which the interpreter put there (unless told not to)."""
    import os

    package = os.path.dirname(os.path.realpath(__file__))
    if sys.path and sys.path[0] and os.path.realpath(sys.path[0]) == package:
        del sys.path[0]  # its modules must never shadow the standard library's
    sys.path.insert(0, os.path.dirname(package))
    if sys.argv[1:2] != ["hook"]:  # a hook processes the site only when it records itself
        from rewind.commands.hook import with_site_packages

        with_site_packages()


if __name__ == "__main__":
    if not __package__:  # a script, not 'python -m rewind'
        _package_on_path()
    from rewind.cli import main

    raise SystemExit(main())
