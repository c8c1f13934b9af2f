#!/usr/bin/env bash
# `make sanitize`: the C kernels (app/ingest/kernels.c) built again with AddressSanitizer and
# UndefinedBehaviorSanitizer into .sanitize/, and the tests that drive them run against that
# build (any out-of-bounds access, use after free or undefined behaviour aborts the run).
# Needs gcc with libasan and libubsan; not part of `make test`.
set -euo pipefail
py="$(pwd)/${1:-.venv/bin/python}"
root="$(pwd)"
out="$root/.sanitize"
mkdir -p "$out"
inc=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['include'])")
ext=$("$py" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
gcc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -fPIC -shared \
    -I"$inc" app/ingest/kernels.c -o "$out/_gangplank_kernels$ext"
preload="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
cd "$out"  # (not the project root, whose own build would be imported first)
LD_PRELOAD="$preload" ASAN_OPTIONS=detect_leaks=0,abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1,halt_on_error=1 \
PYTHONPATH="$out:$root" GANGPLANK_REQUIRE_KERNELS=1 "$py" - "$root" "$out" <<'PY'
import os
import sys

root, out = sys.argv[1], sys.argv[2]
sys.path[:] = [p for p in sys.path if p not in ("", ".")]
import _gangplank_kernels  # noqa: E402

assert os.path.dirname(_gangplank_kernels.__file__) == out, _gangplank_kernels.__file__
os.chdir(root)
import pytest  # noqa: E402

tests = ["tests/test_kernels.py", "tests/test_columns.py", "tests/test_native_pod_columns.py", "tests/test_fastjson.py",
         "tests/test_kai_shortcuts.py", "tests/test_kube_pod_reader.py",
         "tests/test_kube_text.py", "tests/test_untrack_json.py", "tests/test_kai_gpu_sharing.py", "tests/test_extender_replan.py"]
sys.exit(pytest.main(["-x", "-p", "no:cacheprovider", "--capture=sys", *tests]))  # (the C reports reach the terminal)
PY
