"""Go's strconv and integer conversions (``app/ingest/gostrconv.py``), the one home every Go
reading of labels, annotations and arguments uses; and the two 500s that folding them into
it fixed (a number of more than 4,300 digits handed to ``int()``)."""

from __future__ import annotations

import orjson
import pytest

from app.ingest import gostrconv as g
from tests.kube import node, pod, request


@pytest.mark.parametrize("text, bits, want", [
    ("7", 64, (7, "")), ("+7", 64, (7, "")), ("-0", 64, (0, "")), ("0" * 30 + "7", 64, (7, "")),
    ("2147483647", 32, (2147483647, "")), ("2147483648", 32, (None, g.RANGE)), ("-2147483648", 32, (-2147483648, "")),
    ("9223372036854775807", 64, (2**63 - 1, "")), ("9223372036854775808", 64, (None, g.RANGE)),
    ("1" * 5000, 64, (None, g.RANGE)), ("-" + "1" * 5000, 32, (None, g.RANGE)),
    ("", 64, (None, g.SYNTAX)), ("1_0", 64, (None, g.SYNTAX)), (" 1", 64, (None, g.SYNTAX)), ("²", 64, (None, g.SYNTAX)),
    ("0x10", 64, (None, g.SYNTAX)), ("+-1", 64, (None, g.SYNTAX)),
])  # fmt: skip
def test_parse_int_as_go_strconv_parse_int(text: str, bits: int, want: tuple) -> None:
    assert g.parse_int_err(text, bits) == want
    assert g.parse_int(text, bits) == want[0]


def test_parse_bool_wrap_div_rem_as_go() -> None:
    assert [g.parse_bool(s) for s in ("t", "TRUE", "0", "False", "yes", " true")] == [True, True, False, False, None, None]
    assert (g.go_int32(2**32 + 2), g.go_int32(2**31), g.go_int64(2**64 + 4), g.wrap(-1, 32)) == (2, -(2**31), 4, -1)
    assert (g.div(-7, 2), g.div(7, -2), g.div(7, 2), g.rem(-7, 2), g.rem(7, -2)) == (-3, -3, 3, -1, 1)


def test_a_kai_legacy_mig_annotation_of_5000_digits_is_no_500(client) -> None:
    """KAI's legacy MIG annotation is read with Atoi (kube.go_int): 5,000 digits are Go's
    range error (not a MIG task), where int() raised and the request answered 500."""
    p = pod("a", annotations={"nvidia.com/mig-1g.5gb": "1" * 5000})
    body = {**request([node("n1"), p]), "config": {"profile": "kai"}}
    r = client.post("/v1/decisions", content=orjson.dumps(body), headers={"content-type": "application/json"})
    assert r.status_code == 200


def test_a_kueue_job_min_parallelism_of_5000_digits_is_a_422_not_a_500(client) -> None:
    """The Job webhook's Atoi of ``kueue.x-k8s.io/job-min-parallelism``: out of range, a
    422 at the annotation (it answered 500)."""
    from tests.test_admissions import body
    from tests.test_kueue_jobs import make_job

    j = make_job()
    j["metadata"]["annotations"] = {"kueue.x-k8s.io/job-min-parallelism": "1" * 5000}
    j["metadata"].pop("uid", None)
    r = client.post("/v1/admissions", content=orjson.dumps(body([], [j])), headers={"content-type": "application/json"})
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"].endswith("/metadata/annotations/kueue.x-k8s.io~1job-min-parallelism")


@pytest.mark.parametrize(("text", "want"), [
    ("GPU", "gpu"), ("İNFER", "infer"), ("ΑΣ", "ασ"), ("Straße", "straße"), ("", ""),
])  # fmt: skip
def test_go_lower_is_gos_per_code_point_simple_mapping(text: str, want: str) -> None:
    # strings.ToLower: unicode.ToLower per rune (U+0130 -> "i"; no final sigma), not Python's full case mapping
    assert g.go_lower(text) == want
