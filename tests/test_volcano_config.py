"""Loading ``volcano-scheduler.conf`` as Volcano's loader does (``UnmarshalSchedulerConf``,
``OpenSession``): what loads, what is skipped with a warning, what is a 422, and which
arguments the answer reports as not applied. Real configs from Volcano's repository are
in ``tests/volcano_configs/`` (``test_volcano_config_corpus.py``)."""

from __future__ import annotations

import orjson
import pytest

from tests.kube import node, pod, request

OBJS = [node("a"), pod("p", gpu=1)]


def post(client, config, **options):
    body = request(OBJS, config=config)
    body["options"].update(options)
    return client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"})


def conf(*plugins, actions="enqueue, allocate, backfill", **extra):
    return {"actions": actions, "tiers": [{"plugins": [{"name": "gang"}, {"name": "predicates"}, *plugins]}], **extra}


def test_unknown_plugin_is_skipped_with_a_warning_as_volcano_skips_it(client):
    r = post(client, conf({"name": "my-own-plugin"}))
    assert r.status_code == 200
    assert r.json()["bindings"] == [{"pod": "default/p", "node": "a", "job": "default/p"}]
    assert any("plugin 'my-own-plugin' is not one Volcano or KAI ships: skipped" in w for w in r.json()["warnings"])


def test_unknown_plugin_is_a_422_with_strict_config(client):
    r = post(client, conf({"name": "my-own-plugin"}), strictConfig=True)
    assert r.status_code == 422
    assert r.json()["errors"][0]["pointer"] == "/config/tiers/0/plugins/2/name"


@pytest.mark.parametrize("name", ["extender", "rescheduling", "usage"])
def test_volcano_plugin_not_modelled_loads_with_a_warning_saying_what_it_means(client, name):
    r = post(client, conf({"name": name, "arguments": {"some.argument": 1}}))
    assert r.status_code == 200
    warnings = r.json()["warnings"]
    assert [w for w in warnings if w.startswith(f"plugin {name!r} is not modelled by Gangplank: ")]
    assert not [w for w in warnings if "arguments not read" in w]  # the plugin's warning covers its arguments
    assert post(client, conf({"name": name}), strictConfig=True).status_code == 422


def test_argument_nothing_reads_is_named_in_the_warnings(client):
    # binpack reads binpack.weight and its resource weights; a misspelt key is not applied
    r = post(client, conf({"name": "binpack", "arguments": {"binpack.weight": 10, "binpack.wieght": 3}}))
    assert r.status_code == 200
    assert "plugin binpack: arguments not read by Gangplank, so not applied: binpack.wieght" in r.json()["warnings"]


def test_action_argument_nothing_reads_is_named_in_the_warnings(client):
    c = conf(configurations=[{"name": "allocate", "arguments": {"noSuchKnob": True}},
                             {"name": "preempt", "arguments": {"x": 1}}])  # fmt: skip
    warnings = post(client, c).json()["warnings"]
    assert "action allocate: arguments not read by Gangplank, so not applied: noSuchKnob" in warnings
    assert "configuration of action 'preempt', which is not in 'actions': not used" in warnings


def test_unknown_plugin_key_and_config_key_are_ignored_with_a_warning(client):
    c = conf({"name": "binpack", "enableSomething": True}, schedulerName="x")
    r = post(client, c)
    assert r.status_code == 200
    warnings = r.json()["warnings"]
    assert "plugin binpack: key 'enableSomething' is not one Volcano reads; ignored, as Volcano ignores it" in warnings
    assert "config key 'schedulerName' is not one Volcano reads: ignored, as Volcano ignores it" in warnings
    assert post(client, c, strictConfig=True).status_code == 422


def test_unknown_action_is_still_a_422_as_volcano_rejects_the_config(client):
    r = post(client, conf(actions="enqueue, allocate, teleport"))
    assert r.status_code == 422 and r.json()["errors"][0]["pointer"] == "/config/actions"


def test_shuffle_without_a_rescheduling_policy_evicts_nothing(client):
    running = [node("a"), pod("r", gpu=1, node="a", phase="Running"), pod("p", gpu=1)]
    body = request(running, config=conf({"name": "rescheduling"}, actions="enqueue, allocate, backfill, shuffle"))
    out = client.post("/v1/decisions", content=orjson.dumps(body), headers={"Content-Type": "application/json"}).json()
    assert out["evictions"] == [] and len(out["bindings"]) == 1


def test_shuffle_evicts_what_the_first_tier_with_victims_returns() -> None:
    from app.actions.shuffle import Shuffle
    from app.framework.config import PluginOption, SchedulerConfig
    from app.framework.session import Session
    from app.ingest.request import read_request
    from app.plugins import PLUGINS
    from app.settings import Settings

    objs = [node("a"), pod("r1", gpu=1, node="a", phase="Running"), pod("r2", gpu=1, node="a", phase="Running"),
            pod("b", gpu=1, node="a", phase="Pending")]  # fmt: skip
    cluster = read_request(orjson.loads(orjson.dumps(request(objs))), Settings()).cluster
    cfg = SchedulerConfig(actions=["shuffle"], tiers=[[PluginOption("gang")], [PluginOption("predicates")]], action_args={})
    ssn = Session(cluster, cfg, PLUGINS)
    ssn._tier = 0  # noqa: SLF001 - register as plugins do while opening, tier by tier
    ssn.register("victim_tasks", "gang", lambda tasks: [t for t in tasks if t.name == "r2"])
    ssn._tier = 1  # noqa: SLF001
    ssn.register("victim_tasks", "predicates", lambda tasks: tasks)  # a later tier: not asked once tier 0 chose
    Shuffle({}).execute(ssn)
    assert [(e.pod, e.action) for e in ssn.decision.evictions] == [("default/r2", "shuffle")]
