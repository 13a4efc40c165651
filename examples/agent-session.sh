#!/bin/sh
# A short scripted agent session on a throwaway project, recorded through rewind's commands,
# then rewound. Nothing outside a temporary directory is touched.
set -eu

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export REWIND_HOME="$work/rewind-home"
project="$work/project"
mkdir -p "$project/src"
cd "$project"
git init -q .

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

printf 'def add(a, b):\n    return a + b\n' > src/calc.py
printf '# Calculator\n' > README.md

say "turn 1: the agent fixes a bug and adds a test"
rewind begin --session demo --agent scripted --prompt "Make add() handle None"
rewind track src/calc.py tests/test_calc.py
printf 'def add(a, b):\n    return (a or 0) + (b or 0)\n' > src/calc.py
mkdir -p tests && printf 'from src.calc import add\n\nassert add(None, 1) == 1\n' > tests/test_calc.py
rewind end

say "turn 2: the agent rewrites the README and deletes the module"
rewind begin --prompt "Drop the calculator"
rewind track README.md src/calc.py
printf '# Nothing here any more\n' > README.md
rm src/calc.py
rewind end

say "rewind log"
rewind log

say "rewind show 2"
rewind show 2

say "rewind restore 1 --yes: everything back as it was before turn 1"
rewind restore 1 --yes
ls -R src tests 2>/dev/null || true
cat src/calc.py

say "rewind undo --yes: the restore itself is undone"
rewind undo --yes
ls src
cat README.md
