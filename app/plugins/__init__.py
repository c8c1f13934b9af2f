"""Plugin registry: the names users write in ``tiers[].plugins[].name``."""

from __future__ import annotations

from app.framework.plugin import Plugin
from app.plugins.binpack import Binpack
from app.plugins.capacity import Capacity
from app.plugins.cdp import Cdp
from app.plugins.deviceshare import PARTIAL, DeviceShare
from app.plugins.conformance import Conformance
from app.plugins.drf import Drf
from app.plugins.gang import Gang
from app.plugins.kai import KAI_PLUGINS, KaiPredicates
from app.plugins.kai_fairshare import KaiFairShare
from app.plugins.network_topology_aware import NetworkTopologyAware
from app.plugins.nodegroup import NodeGroup
from app.plugins.nodeorder import NodeOrder
from app.plugins.numaaware import NumaAware
from app.plugins.overcommit import Overcommit
from app.plugins.pdb import Pdb
from app.plugins.predicates import Predicates
from app.plugins.priority import Priority
from app.plugins.proportion import Proportion
from app.plugins.resource_strategy_fit import ResourceStrategyFit
from app.plugins.resourcequota import ResourceQuotaPlugin
from app.plugins.sla import Sla
from app.plugins.task_topology import TaskTopologyPlugin
from app.plugins.tdm import Tdm
from app.plugins.volcano_unmodelled import UNMODELLED, UNMODELLED_PLUGINS

PLUGINS: dict[str, type[Plugin]] = {
    p.name: p
    for p in (Binpack, Capacity, Cdp, Conformance, DeviceShare, Drf, Gang, NetworkTopologyAware, NodeGroup, NodeOrder, NumaAware, Overcommit, Pdb, Predicates,
              Priority, Proportion, ResourceQuotaPlugin, ResourceStrategyFit, Sla, TaskTopologyPlugin, Tdm, KaiFairShare, *KAI_PLUGINS,
              *UNMODELLED_PLUGINS)
}  # fmt: skip

#: Names that mean another implementation under a profile (KAI's "proportion" is its
#: fair-share plugin, not Volcano's).
PROFILE_PLUGINS: dict[str, dict[str, type[Plugin]]] = {"kai": {"proportion": KaiFairShare, "predicates": KaiPredicates}}

#: Names of Volcano's and KAI's default configurations that this version recognises but
#: does not implement yet; configuring one is a 422 that says so (never a silent no-op).
PENDING_PLUGINS: dict[str, str] = {}

__all__ = ["PARTIAL", "PENDING_PLUGINS", "PLUGINS", "PROFILE_PLUGINS", "UNMODELLED"]
