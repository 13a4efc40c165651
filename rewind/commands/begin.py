from __future__ import annotations

from rewind.recording import begin
from rewind.session import resolve_session
from rewind.store import Store


def run(*, session: str | None, prompt: str, agent: str, labels: list[str]) -> int:
    store = Store.of_current_project(create=True)
    session_id = resolve_session(store, session, create=True)
    entry = begin(store, session_id, prompt=prompt, agent=agent, labels=labels)
    print(f"turn {entry.number} of session {entry.session} ({entry.id})")
    return 0
