"""The build step pyproject.toml cannot say: docs/ goes into the package as ``rewind/docs``, so
that an installed ``rewind help TOPIC`` can show every page (the rest is in pyproject.toml)."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DOCS = Path(__file__).resolve().parent / "docs"


class BuildWithDocs(build_py):  # type: ignore[misc]
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "rewind" / "docs"
        for page in sorted(DOCS.rglob("*.md")):
            copy = target / page.relative_to(DOCS)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(page, copy)


setup(cmdclass={"build_py": BuildWithDocs})
