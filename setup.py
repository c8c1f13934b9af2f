"""The optional C ingest kernels (``app/ingest/kernels.c``); everything else is in pyproject.toml.

``optional=True``: where no C compiler is at hand the install goes on without them and
``app/ingest/kernels.py`` runs the same functions in Python.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("_gangplank_kernels", ["app/ingest/kernels.c"], optional=True)])
