"""The resident recorder: one process per user that takes an agent's hook events over HTTP on
127.0.0.1, so that the events an agent can send that way cost no process of their own.

Claude Code runs hooks of ``"type": "http"`` (a POST of the event's JSON). ``rewind install
claude-code`` makes the events whose record can be taken again later if one is lost (the
after-state of a shell call, the end of a turn, the end of the session) HTTP hooks to
``http://127.0.0.1:PORT/rewind/hook/claude-code``, and keeps a process (a command hook) for
what could be lost for good: the prompt that begins a turn and every file's state before a tool
changes it. Each of those command hooks checks that the resident listens on the port its
settings name and starts it when it does not (:mod:`rewind.resident.reach`), so a resident that
was killed is back by the next tool call; an event sent while none listened is not lost either:
a turn left open is closed, with every file's after-state, by the next prompt or the session's
end (rewind.history.recording), as it would be after a crash of the agent.

- :mod:`rewind.resident.address`: the port, the URL and the headers of the hooks; on the hook
  path.
- :mod:`rewind.resident.reach`: whether the resident runs, and starting it; on the hook path.
- :mod:`rewind.resident.server`: the resident itself (``python -m rewind.resident.server``).
"""
