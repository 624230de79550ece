"""Build of the solver's compiled core (``app/engine/solver/_core.pyx``, Cython 3).

Everything else about the package is in ``pyproject.toml``; ``pip install -e .`` runs this and
builds the extension in place. The app runs without it (the pure-Python search,
``app/engine/solver/core.py``), only slower.
"""

from Cython.Build import cythonize
from setuptools import Extension, setup

setup(
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
    )
)
