"""The build steps pyproject.toml cannot say, each a folder of the checkout copied into the
package: docs/ as ``rewind/docs`` (so that an installed ``rewind help TOPIC`` can show every
page) and hooks/, the agents' ready-made hook configurations and the Claude Code plugin, as
``rewind/agent_configs`` (``rewind/hooks`` is the adapters' package), so that an installed
rewind has them beside its modules. The rest is in pyproject.toml."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CHECKOUT = Path(__file__).resolve().parent
# Each folder of the checkout, the files of it that are copied, and where in the package.
COPIED = (
    (CHECKOUT / "docs", "*.md", "docs"),
    (CHECKOUT / "hooks", "*", "agent_configs"),
)


class BuildWithDocsAndHooks(build_py):  # type: ignore[misc]
    def run(self) -> None:
        super().run()
        for source, pattern, name in COPIED:
            target = Path(self.build_lib) / "rewind" / name
            for path in sorted(source.rglob(pattern)):
                if path.is_file():
                    copy = target / path.relative_to(source)
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy(path, copy)  # with its mode: Cline's hook scripts run


setup(cmdclass={"build_py": BuildWithDocsAndHooks})
