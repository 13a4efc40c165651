"""The resident recorder: one process per user (per rewind home and port) on 127.0.0.1 that
records the events of every agent's hooks, so that an event costs no process of its own, or a
process that loads none of the recording.

- Claude Code and Qwen Code run hooks of ``"type": "http"``: ``rewind install`` makes their
  after-events (the after-state of a tool call, the end of a turn, the end of the session)
  POSTs to ``http://127.0.0.1:PORT/rewind/hook/AGENT``, and keeps a process (a command hook)
  for what could be lost for good: the prompt that begins a turn and every file's state before a
  tool changes it.
- Every agent's command hooks hand their event to the resident when it runs (Claude Code's and
  Qwen's where their settings name its port; the others' once ``rewind install`` has run under
  the rewind home): the process sends the event with its environment and working directory and
  exits once the resident has recorded it.
- An event handled by a process of its own starts the resident when it does not run
  (rewind.hooks.answer_event), so a resident that was killed is back by the next event.

Nothing depends on it: an event is the resident's only once it says so before the event's
deadline, else its process records it (rewind.resident.forward); an after-event posted while
none listened is read again at the turn's end or by the next prompt, which closes a turn left
open with every file's after-state, as after a crash of the agent.

- :mod:`rewind.resident.address`: the port, the URLs and headers of the hooks, where a hook
  finds the port; on the hook path.
- :mod:`rewind.resident.reach`: whether the resident runs, and starting it; on the hook path.
- :mod:`rewind.resident.forward`: a hook's process handing its event over; on the hook path.
- :mod:`rewind.resident.wire`: the little HTTP both sides speak.
- :mod:`rewind.resident.server`: the resident itself (``python -m rewind.resident.server``).
"""
