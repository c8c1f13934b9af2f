"""Real ``volcano-scheduler.conf`` files from Volcano's repository (``tests/volcano_configs/``,
sources in their first line and ``INDEX.md``) load as Volcano's loader loads them.

Each config is posted with a small cluster. It loads unless Volcano itself rejects it:
YAML Volcano cannot parse either (tabs, a ``...`` document end), or an action name
Volcano does not register (``elect`` and ``reserve`` of old design docs, a doc's
placeholder). When it loads, nothing it says is dropped silently: every plugin is one
Gangplank runs or is named in the warnings, every flag key is applied or named, and every
argument is read during the decision or named.
"""

from __future__ import annotations

import pathlib

import orjson
import pytest
import yaml

from app.framework.config import FLAG_KEY
from app.plugins import PLUGINS, UNMODELLED
from tests.kube import node, pod, podgroup, queue, request

CORPUS = sorted(pathlib.Path(__file__).parent.joinpath("volcano_configs").glob("*.conf"))
#: Action names Volcano registers (pkg/scheduler/actions/factory.go), exactly as spelled.
VOLCANO_ACTIONS = {"reclaim", "allocate", "backfill", "preempt", "gangpreempt", "gangreclaim", "enqueue", "shuffle"}
OBJS = [node("a"), node("b"), queue("default", weight=1), podgroup("g", min_member=2, queue="default"),
        pod("g-0", group="g", gpu=4), pod("g-1", group="g", gpu=4), pod("r", gpu=2, node="a", phase="Running")]  # fmt: skip


def _expected(text: str) -> tuple[int, str | None]:
    try:
        conf = yaml.safe_load(text)
    except yaml.YAMLError:
        return 422, "/config"
    words = [w.strip() for w in str(conf.get("actions", "")).split(",") if w.strip()]
    if any(w.lower() not in VOLCANO_ACTIONS for w in words):
        return 422, "/config/actions"
    return 200, None


def test_the_corpus_holds_the_configs_the_issue_counted():
    assert len(CORPUS) >= 42


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_real_volcano_config_loads_as_volcano_loads_it(client, path):
    text = path.read_text()
    status, pointer = _expected(text)
    r = client.post("/v1/decisions", content=orjson.dumps(request(OBJS, config=text)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == status, r.text
    if status != 200:
        assert r.json()["errors"][0]["pointer"].startswith(pointer)  # type: ignore[arg-type]
        return
    warnings = "\n".join(r.json()["warnings"])
    conf = yaml.safe_load(text)
    for tier in conf.get("tiers") or []:
        for p in (tier or {}).get("plugins") or []:
            name = p["name"]
            if name not in PLUGINS or name in UNMODELLED:
                assert f"plugin {name!r}" in warnings, name  # skipped or not modelled: said so
                continue
            for key in p:
                if key not in ("name", "arguments") and key not in FLAG_KEY.values():
                    assert repr(key) in warnings, (name, key)  # a key Volcano does not read: said so


@pytest.mark.parametrize(("stem", "expected"), [
    ("helm-volcano-scheduler", []),  # Volcano's chart default: everything applied
    ("go-scheduler-default", []),
    ("go-plugin-binpack", ["1 gang(s) need several pods at once (e.g. default/g) but the gang plugin is not configured: "
                           "their pods are placed one by one, a gang may start partly"]),  # every binpack argument is read; no gang plugin
    ("go-plugin-nodeorder", ["plugin nodeorder: arguments not read by Gangplank, so not applied: imagelocality.weight"]),
    # podaffinity.weight and podtopologyspread.weight are read (preferred pod affinity, ScheduleAnyway spread)
    ("doc-guide-capacity-plugin-2", []),
    ("go-plugin-nodegroup", []),  # enablePreferredOrder is read
    ("doc-guide-resource-strategy-fit", []),  # resource-strategy-fit reads resourceStrategyFitWeight and resources
    ("go-plugin-resource-strategy-fit", ["1 gang(s) need several pods at once (e.g. default/g) but the gang plugin is "
                                         "not configured: their pods are placed one by one, a gang may start partly"]),  # sra, proportional read too
    ("doc-guide-task-topology", []),  # task-topology reads task-topology.weight
    ("go-plugin-task-topology", ["1 gang(s) need several pods at once (e.g. default/g) but the gang plugin is not "
                                 "configured: their pods are placed one by one, a gang may start partly"]),
    ("doc-design-node-group", []),  # nodegroup's enableHierarchy is applied (no root queue here: nothing to inherit)
    ("doc-guide-nodegroup-plugin-1", []),  # strict is read  # ancestorReclaimLevel is read (tests/test_capacity_ancestor_reclaim.py)
    ("helm-volcano-scheduler-ci", ["plugin predicates: arguments not read by Gangplank, so not applied: "
                                   "predicate.DynamicResourceAllocationEnable"]),
    ("doc-design-plugin-conf-2", ["plugin drf: key 'disableTaskOrder' is not one Volcano reads; ignored, as Volcano ignores it"]),
    ("doc-guide-numa-aware", []),  # numa-aware reads weight
])  # fmt: skip
def test_real_volcano_config_warnings_name_exactly_what_is_not_applied(client, stem, expected):
    text = (pathlib.Path(__file__).parent / "volcano_configs" / f"{stem}.conf").read_text()
    r = client.post("/v1/decisions", content=orjson.dumps(request(OBJS, config=text)),
                    headers={"Content-Type": "application/json"})  # fmt: skip
    assert r.status_code == 200 and r.json()["warnings"] == expected
