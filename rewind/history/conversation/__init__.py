"""The agent's own conversation, with the files: where it stood before each turn, and resuming it
from there as a new branch (docs/conversation.md)."""
