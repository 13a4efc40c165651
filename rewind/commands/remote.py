"""``rewind remote [list|add|remove]``: the git remotes sessions travel through."""

from __future__ import annotations

from rewind.actions.records import FORMAT
from rewind.actions.stores import open_current_store
from rewind.commands.output.json_output import print_json
from rewind.history.remote.remote_setup import add_remote, project_remote_named
from rewind.store.config import CONFIG_NAME
from rewind.store.remotes import list_remotes, remove_remote


def run(*, action: str | None, name: str = "", url: str = "", as_json: bool = False) -> int:
    store = open_current_store(create=True)
    if action == "add":
        stored = add_remote(store, name, url)
        print(f"added remote {name}: {stored}")
        own = project_remote_named(store, stored)
        if own is not None:
            print(
                f"note: it is the project's own remote {own!r}: sessions pushed there can be "
                "read by everyone who can read the code; the first push asks to confirm."
            )
        print(
            f"'rewind push {name}' sends sessions, 'rewind fetch {name}' brings others'; "
            f'[remote] backup = "{name}" in {CONFIG_NAME} pushes after every turn.'
        )
        return 0
    if action == "remove":
        remove_remote(store, name)
        print(
            f"removed remote {name} and what was fetched from it; the remote itself is unchanged."
        )
        return 0
    remotes = list_remotes(store)
    backup = store.config.remote.backup
    if as_json:
        print_json(
            {
                "format": FORMAT,
                "remotes": [
                    {"name": n, "url": u, "backup": n == backup} for n, u in remotes.items()
                ],
            }
        )
        return 0
    if not remotes:
        print("no remotes yet; 'rewind remote add NAME URL' adds one.")
    for remote_name, remote_url in remotes.items():
        marker = "  (backup)" if remote_name == backup else ""
        print(f"{remote_name}\t{remote_url}{marker}")
    return 0
