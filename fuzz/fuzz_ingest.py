"""Coverage-guided fuzzing of the ingest path with atheris (``make fuzz``).

Request body bytes -> parse -> ingest (objects, native form, quantities, selectors, YAML);
see :mod:`fuzz.targets` for what each input is fed to. Every input must be accepted or
refused with ``InputError`` (a 4xx); any other exception is reported as a crash.

Run: ``make fuzz`` (``FUZZ_SECONDS=60``), or
``python fuzz/fuzz_ingest.py .fuzz/corpus fuzz/corpus -max_total_time=60 -dict=fuzz/ingest.dict``.
"""

from __future__ import annotations

import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

with atheris.instrument_imports(include=["app", "fuzz"]):
    from fuzz.targets import one_input


def TestOneInput(data: bytes) -> None:  # noqa: N802 - atheris' name
    one_input(data)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
