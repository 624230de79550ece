"""Only what pyproject.toml cannot say: the translations are compiled at install, and the
solver's compiled core (``app/engine/solver/_core.pyx``, Cython 3) is built.

``build_py`` (run by ``pip install .`` and by ``pip install -e .`` alike) first runs
``compile_catalogs``: every ``app/locales/<locale>/LC_MESSAGES/messages.po`` becomes its
``messages.mo`` beside it (never committed: see .gitignore). The metadata stays in
pyproject.toml. The core is built in place by ``pip install -e .``; it is optional: a machine
without a C compiler or Python's headers still installs and runs the pure-Python search
(``app/engine/solver/core.py``), only slower.
"""

from __future__ import annotations

import io
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Command, Extension, setup
from setuptools.command.build_py import build_py

LOCALES = Path(__file__).resolve().parent / "app" / "locales"


class compile_catalogs(Command):  # noqa: N801 (a setuptools command's name)
    description = "compile app/locales/*/LC_MESSAGES/*.po into .mo files"
    user_options: list[tuple[str, str | None, str]] = []

    def initialize_options(self) -> None:
        pass

    def finalize_options(self) -> None:
        pass

    def run(self) -> None:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in sorted(LOCALES.glob("*/LC_MESSAGES/*.po")):
            with po.open("rb") as f:
                catalog = read_po(f, locale=po.parent.parent.name)
            out = io.BytesIO()
            write_mo(out, catalog, use_fuzzy=False)
            mo = po.with_suffix(".mo")
            if not mo.is_file() or mo.read_bytes() != out.getvalue():
                mo.write_bytes(out.getvalue())
            print(f"compiled {po.relative_to(LOCALES.parent.parent)} -> {mo.name}")


class build_py_with_catalogs(build_py):  # noqa: N801
    def run(self) -> None:
        self.run_command("compile_catalogs")
        super().run()


setup(
    cmdclass={"compile_catalogs": compile_catalogs, "build_py": build_py_with_catalogs},
    ext_modules=cythonize(
        [
            Extension(
                "app.engine.solver._core",
                ["app/engine/solver/_core.pyx"],
                extra_compile_args=["-O3"],
                # a machine without a C compiler or Python's headers (Debian: gcc,
                # python3-dev) still installs, and runs the pure-Python search
                optional=True,
            )
        ],
        compiler_directives={"language_level": "3"},
    ),
)
