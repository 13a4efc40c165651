"""``rewind completion SHELL``: the completion script for bash, zsh or fish, made by shtab from
the same argparse parser that reads the command line, so that it lists every command and
option there is."""

from __future__ import annotations

import shtab

from rewind.commands.parsing.parser import build_parser


def run(*, shell: str) -> int:
    print(shtab.complete(build_parser(), shell=shell), end="")
    return 0
