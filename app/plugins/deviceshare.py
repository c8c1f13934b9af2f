"""deviceshare: Volcano's device-sharing plugin (``pkg/scheduler/plugins/deviceshare``) for
NVIDIA GPUs: GPU sharing / GPU number (:mod:`app.devices.gpushare`) and HAMi vGPU, hami-core and
MIG (:mod:`app.devices.vgpu`, under :mod:`app.devices.config`); and HAMi Ascend vNPU
(``deviceshare.AscendHAMiVNPUEnable``: :mod:`app.devices.ascend`, one device type per entry of
the device config's ``vnpus``), checked after the NVIDIA devices as Volcano's registration
order has it, scored with them (``getDeviceScore``: the vGPU score plus each asked vNPU type's
``ScoreNode``), allocated and released through the same events.

* Arguments, read as Volcano's ``Arguments`` reads them: ``deviceshare.GPUSharingEnable``,
  ``deviceshare.GPUNumberEnable``, ``deviceshare.VGPUEnable`` (``GetBool``, default false),
  ``deviceshare.SchedulePolicy`` (``GetString``, default ""; ``binpack`` and ``spread`` mean
  something to vGPU, any other string is the legacy order), ``deviceshare.ScheduleWeight``
  (``GetInt``, default 0). GPU sharing with GPU number, or either with vGPU, stops Volcano's
  scheduler (``klog.Fatal``): a 422 here. The arguments it does not model are named by
  :func:`unmodelled_arguments` when the config is read (warnings; 422s under
  ``options.strictConfig``): ``NodeLockEnable``, ``AscendMindClusterVNPUEnable``.
  ``deviceshare.GPUExclusiveRules`` (with vGPU): pods matching one rule never share a vGPU
  card (:mod:`app.plugins.gpuexclusive`).
  ``KnownGeometriesCMNamespace`` / ``KnownGeometriesCMName`` (default
  ``kube-system/volcano-vgpu-device-config``) name the ConfigMap whose ``device-config.yaml``
  gives vGPU its resource names, memory-percentage resource and MIG models
  (:mod:`app.devices.config`); without it in the snapshot, Volcano's default config (a warning).
* MIG: a device registering ``mig`` whose type the device config's MIG geometries know is
  shared by MIG instances when it is its node's last device (the node's handler): an
  instance of the group in use (else of the first group with one) at least as large as the
  memory asked (times ``gpuMemoryFactor``), counted as its memory (divided by the factor);
  pods on it take the instance their ``uuid[group-position]`` names.
* Devices: per Ready node of the snapshot's Kubernetes objects (a native node registers none),
  from its ``status`` and annotations, once per session; the pods on it (every status but
  Releasing and Pipelined, as ``NodeInfo.AddTask`` adds them) take what their annotations say.
* Predicate: a pod asking an enabled device (``HasDeviceRequest``) must fit the devices of a
  node that has them; a node without them passes (Volcano's plugin skips it; the plain
  resource check still applies, since neither device hides its resources from it).
  A refusal is ``Unschedulable``, which an eviction may resolve: Volcano's preempt and
  reclaim keep such a node as a candidate (``PredicateForPreemptAction``: the vGPU filter still
  runs there, leaving its score for the node order), and a victim's devices are free as soon
  as it is evicted.
* NodeOrder (only when ``ScheduleWeight`` > 0): per node, the vGPU score its last successful
  filter left (``GPUDevices.Score``; gpushare scores 0), ``int64(math.Floor(s + 0.5))`` times
  the weight.
* ``/v1/simulate``: the pods a decision binds carry the device annotation Volcano's bind gives
  them into the next cycle (:meth:`DeviceShare.on_session_close`).
* Allocate / Deallocate events: a pod placed (not pipelined) first adds what its own
  annotations list (``AddTask``), then, when the ``predicates`` plugin is configured (its
  Allocate handler is what calls the devices' ``Allocate``), takes its devices; taken back or
  evicted, it gives back what its annotations list (``RemoveTask``) and, with ``predicates``,
  what the device's ``Release`` gives back: all its cards for gpushare, only what its own
  annotation lists for vGPU (so an in-session placement undone keeps its vGPU devices, as in
  Volcano). A device ``Allocate`` that fails (the predicates handler's ``event.Err``) fails the
  Statement's ``Allocate`` / ``Pipeline`` (:meth:`Session.fail_allocation`): the placement is
  taken back. Tasks asking devices are placed one at a time (``Session.on_pods_landing``);
  Gangplank's own trials put the devices back (``Session.on_trial``), through an undo log of
  the nodes they change.
* Costs: nothing registers unless a device kind is enabled; then one pass over the nodes and
  the pods on those with devices at open (each node's card figures refreshed once, after its
  pods; the request's deadline checked: past it, :attr:`expired`). The gpushare predicate compares two per-node arrays (largest idle card memory, idle
  cards), kept up to date as cards change; the vGPU one runs the fit on the nodes with devices
  only, remembering each node's answer per devices' state and pod signature, and past the
  request's deadline refuses them (the answer says ``truncated``). With GPU exclusivity rules,
  one more pass over the pods at open (each hami-core vGPU node's rule state); without them,
  nothing more.
* Limits: a node registering more than :data:`MAX_DEVICES` devices has none (a warning);
  Volcano would build them all.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from app.devices import ascend as npu
from app.devices import config as devconfig
from app.devices import gpushare as gs
from app.devices import quantity as devq
from app.devices import vgpu as vg
from app.errors import InputError
from app.framework.plugin import Plugin, is_go_int
from app.ingest.quantity import format_quantity
from app.ingest.reader import go_bool
from app.model.cluster import Task, TaskStatus
from app.plugins import gpuexclusive as gx

NAME = "deviceshare"
GPU_SHARING, GPU_NUMBER, VGPU = "deviceshare.GPUSharingEnable", "deviceshare.GPUNumberEnable", "deviceshare.VGPUEnable"
POLICY, WEIGHT = "deviceshare.SchedulePolicy", "deviceshare.ScheduleWeight"
NODE_LOCK = "deviceshare.NodeLockEnable"
ASCEND_MINDCLUSTER, ASCEND_HAMI = "deviceshare.AscendMindClusterVNPUEnable", "deviceshare.AscendHAMiVNPUEnable"
EXCLUSIVE_RULES = "deviceshare.GPUExclusiveRules"
CM_NAME, CM_NAMESPACE = "deviceshare.KnownGeometriesCMName", "deviceshare.KnownGeometriesCMNamespace"
DEFAULT_CM = ("volcano-vgpu-device-config", "kube-system")
ASCEND_PREFIX = "huawei.com/Ascend"
INT64_MAX = 2**63 - 1
#: remembered vGPU fits (emptied when full)
FIT_CACHE_MAX = 200_000
#: Gangplank's bound on the devices (cards) one node registers
MAX_DEVICES = 1024

Containers = list[tuple[dict, dict]]  # (limits, requests) per container


def _on(args: Any, key: str) -> bool:
    return go_bool(args.get(key), False)[0]


def unmodelled_arguments(args: Any) -> list[tuple[str, str]]:
    """The arguments of a ``deviceshare`` entry whose effect Gangplank does not model:
    (key, what leaving it out means)."""
    out = []
    if _on(args, NODE_LOCK):
        out.append((NODE_LOCK, "node locks at allocation are not modelled: a node an earlier bind still holds "
                               "locked does not fail the allocation here"))  # fmt: skip
    if _on(args, ASCEND_MINDCLUSTER):
        out.append((ASCEND_MINDCLUSTER, "Ascend 310P vNPU (MindCluster) sharing is not modelled: its requests count as "
                                        "plain node resources"))  # fmt: skip
    return out


class DeviceShare(Plugin):
    name = NAME
    summary = ("Volcano: NVIDIA GPU sharing by memory, GPU number and HAMi vGPU (hami-core, MIG) and HAMi Ascend vNPU "
               "per device, from node registrations, pods' annotations and the device ConfigMap; binpack / spread "
               "device order and vGPU / vNPU score")

    def open(self) -> None:
        ssn = self.ssn
        self.sharing = self.arg_go_bool(GPU_SHARING, False)
        self.number = self.arg_go_bool(GPU_NUMBER, False)
        self.vgpu = self.arg_go_bool(VGPU, False)
        self.hami = self.arg_go_bool(ASCEND_HAMI, False)
        self.policy = self._go_string(POLICY, "")
        rules = gx.parse_rules(self.args.get(EXCLUSIVE_RULES))  # (``loadGPUExclusiveConfig``)
        #: the GPU exclusivity rules (vGPU only; none: no node is wrapped)
        self.rules = rules if self.vgpu else ()
        raw_weight = self.args.get(WEIGHT)
        self.weight = raw_weight if is_go_int(raw_weight) else 0
        if raw_weight is not None and not is_go_int(raw_weight):
            self.warn(f"plugin {NAME}: argument {WEIGHT} {raw_weight!r} is not an integer: 0 is used, as Volcano does")
        if self.sharing and self.number:
            raise InputError(f"plugin {NAME}: {GPU_SHARING} and {GPU_NUMBER} cannot both be true (Volcano's scheduler "
                             "stops: 'can not define true in both gpu sharing and gpu number')",
                             self._pointer(GPU_NUMBER))  # fmt: skip
        if (self.sharing or self.number) and self.vgpu:
            raise InputError(f"plugin {NAME}: GPU sharing / GPU number and {VGPU} cannot be used together (Volcano's "
                             "scheduler stops: 'gpu-share and vgpu can't be used together')", self._pointer(VGPU))  # fmt: skip
        self.gpushare_on = self.sharing or self.number
        for key, default in ((CM_NAME, DEFAULT_CM[0]), (CM_NAMESPACE, DEFAULT_CM[1])):
            self._go_string(key, default)  # (read as Volcano reads them; used by vGPU only)
        self.config, (self.npu_core, self.npu_types) = ((self._device_config() if self.vgpu or self.hami else
                                                         (devconfig.DEFAULT, npu.DEFAULT)))  # fmt: skip
        if not self.hami:
            self.npu_types = ()
        modelled = {n for c in self.npu_types for n in (c.resource, c.memory_resource, f"{c.resource}-core")}
        ascend = [n for n in ssn.cluster.resources.names if n.startswith(ASCEND_PREFIX) and n not in modelled]
        if ascend:
            self.warn(f"plugin {NAME}: Ascend NPU sharing is not modelled for {', '.join(ascend)}"
                      f"{'' if self.hami else f' ({ASCEND_HAMI} is off)'}: they count as plain node resources, so "
                      "placements may differ")  # fmt: skip
        if not (self.gpushare_on or self.vgpu or self.npu_types):
            return
        if self.vgpu and self.policy not in ("", vg.BINPACK, vg.SPREAD):
            self.warn(f"plugin {NAME}: {POLICY} {self.policy!r} is neither binpack nor spread: vGPU devices are tried "
                      "from the highest id down and score 0, as Volcano does")  # fmt: skip
        self.allocating = any(p.name == "predicates" for tier in ssn.config.tiers for p in tier)
        if not self.allocating:
            self.warn(f"plugin {NAME}: no predicates plugin is configured: in Volcano its Allocate handler is what takes "
                      "a device for a pod placed in the session, so later pods of the session see those devices free, "
                      "as here")  # fmt: skip
        self._facts: dict[str, tuple[int, int, bool, list[vg.Request], bool]] = {}
        #: pod key -> the device annotation its placement in this session gives it (bind)
        self._assigned: dict[str, dict[str, str]] = {}
        #: the request's deadline passed while the session opened (the devices are partly
        #: read): the predicate refuses the nodes with devices to a pod asking one (nothing
        #: lands unchecked; the answer says ``truncated``)
        self.expired = False
        #: cards looked at to refresh the per-node figures (the session's device work)
        self.card_scans = 0
        self._opening = True
        #: Gangplank's trials: an undo log of (node, its cards, its vGPU devices) as they were
        #: before the node's first change of each save epoch (a save opens an epoch; a restore
        #: pops the log back to the save's mark): a save copies nothing, a restore only what
        #: changed. ``_logged``: node -> the epoch its devices were last logged in
        self._log: list[tuple[int, gs.GpuShareDevices | None, vg.VgpuDevices | None, list[npu.AscendDevices] | None,
                              int | None]] = []  # fmt: skip
        self._logged: dict[int, int] = {}
        self._epoch = 0
        self._epochs = 0
        #: device copies the trials made (the trials' device work)
        self.trial_copies = 0
        #: node index -> its devices, per kind
        self.cards: dict[int, gs.GpuShareDevices] = {}
        self.vgpus: dict[int, vg.VgpuDevices] = {}
        #: node index -> its HAMi Ascend device types, in the config's order
        self.npus: dict[int, list[npu.AscendDevices]] = {}
        self._npu_facts: dict[str, tuple[list[list[npu.Request] | None], bool]] = {}
        #: (what, annotation key or type) warned once (bounded warnings)
        self._npu_noted: set[tuple[str, str]] = set()
        #: (vNPU type, what, policy) warned to depend on Volcano's random order among tied devices
        self._npu_tie_noted: set[tuple[str, str, str]] = set()
        #: a vNPU type's config -> its index in the config (the pod's raw requests per entry);
        #: a commonWord -> the place of its first entry (Volcano's ``RegisterDevice`` keeps a
        #: name once, where it first comes: the predicate's order over the node's types)
        self._npu_index: dict[npu.VnpuConfig, int] = {}
        self._npu_rank: dict[str, int] = {}
        for i, c in enumerate(self.npu_types):
            self._npu_index.setdefault(c, i)
            self._npu_rank.setdefault(c.common_word, i)
        #: vNPU memory / core resource -> the first pod met asking it (IgnoredDevicesList; warned once)
        self._npu_ignored: dict[str, str] = {}
        #: the vNPU score per (node, its devices' version, the pod's asks)
        self._npu_scores: dict[tuple, tuple[float, bool]] = {}
        self._read_nodes()
        c = ssn.cluster
        self.has = np.zeros(len(c.nodes), dtype=bool)
        self.has[np.fromiter([*self.cards, *self.vgpus, *self.npus], dtype=np.intp)] = True
        #: per node, what the gpushare filter reads: the largest idle card memory (-1: no card)
        #: and the idle cards, kept as the cards change
        self.has_cards = np.zeros(len(c.nodes), dtype=bool)
        self.has_cards[np.fromiter(self.cards, dtype=np.intp)] = True
        self.max_idle = np.full(len(c.nodes), -1, dtype=np.int64)
        self.idle_cards = np.zeros(len(c.nodes), dtype=np.int64)
        #: per node, a count of changes to its devices; remembered vGPU fits by (node, count,
        #: the pod's signature); the score each node's last successful vGPU filter left
        self._version = np.zeros(len(c.nodes), dtype=np.int64)
        self._fit_cache: dict[tuple, tuple[bool, float]] = {}
        self.vgpu_score: dict[int, float] = {}
        self._existing()
        if self.rules:
            self._wrap()
        self._opening = False
        for n in self.cards:  # (once per node, after its pods: linear in pods + cards)
            self._cards_changed(n)
        self._version += 1
        ssn.register("predicate", NAME, self.predicate)
        if self.weight > 0 and (self.vgpu or self.npu_types):
            ssn.register("node_order", NAME, self.score)
        ssn.on_allocate(self._allocated)
        ssn.on_deallocate(self._deallocated)
        ssn.on_pods_landing(self.asks)
        ssn.on_trial(self._save, self._restore)

    def _device_config(self) -> tuple[devconfig.NvidiaConfig, tuple[bool, tuple[npu.VnpuConfig, ...]]]:
        """``InitDevicesConfig``: the ConfigMap the arguments name, as Volcano decodes it (its
        ``nvidia`` and ``vnpus`` sections; where either fails to decode, Volcano's default for
        both)."""
        name = self._go_string(CM_NAME, DEFAULT_CM[0])
        ns = self._go_string(CM_NAMESPACE, DEFAULT_CM[1])
        found = self.ssn.cluster.device_configs.get((ns, name), [])
        if len({text for text, _ in found}) > 1:
            raise InputError(f"ConfigMap {ns}/{name} is in the snapshot more than once, with different "
                             f"{devconfig.KEY}: Volcano reads one", found[1][1], {"kind": "ConfigMap", "namespace": ns,
                                                                                   "name": name})  # fmt: skip
        if not found:
            self.warn(f"plugin {NAME}: the snapshot has no ConfigMap {ns}/{name} with a {devconfig.KEY} (Volcano's "
                      "device config, read from the cluster when Volcano starts): Volcano's default config is "
                      "used, as Volcano does without it (resource names volcano.sh/vgpu-number, -memory, -cores; no "
                      "memory-percentage resource; no MIG geometries; one vNPU type, Ascend310P)")  # fmt: skip
            return devconfig.DEFAULT, npu.DEFAULT
        config, note = devconfig.read(found[0][0])
        vnpus = npu.DEFAULT
        if not note:
            from app.ingest.body import parse_yaml_text

            try:
                top = parse_yaml_text(found[0][0], "", devconfig.KEY)
                vnpus = npu.decode_vnpus(top.get("vnpus") if isinstance(top, dict) else None)
            except npu.Fallback as e:
                config, note = devconfig.DEFAULT, f"{e}; Volcano's default device config is used"
        self.warn(f"plugin {NAME}: ConfigMap {ns}/{name} {devconfig.KEY} read as Volcano's vGPU and vNPU device config" +
                  (f": {note}" if note else " (the ignored-objects count includes it: nothing else reads it)"))
        return config, vnpus

    def _go_string(self, key: str, default: str) -> str:
        """``Arguments.GetString``: a string, else ``default`` (Volcano logs it)."""
        raw = self.args.get(key)
        if raw is None:
            return default
        if not isinstance(raw, str):
            self.warn(f"plugin {NAME}: argument {key} {raw!r} is not a string: {default!r} is used, as Volcano does")
            return default
        return raw

    # -- the nodes -------------------------------------------------------------------------------
    def _objects(self) -> Any:
        ref = self.ssn.cluster.pod_specs
        specs = ref() if ref is not None else None
        if specs is None and ref is not None:
            raise RuntimeError("the request of this snapshot is gone: keep it while its sessions run")
        return specs

    def _read_nodes(self) -> None:
        c = self.ssn.cluster
        specs = self._objects()
        if specs is None:
            return
        counted = self.ssn.counted_nodes()
        for k, node in enumerate(c.nodes):
            if k % 64 == 63 and self.ssn.out_of_time():
                self.expired = True
                return
            if not counted[k] or not node.pointer.startswith("/objects/"):
                continue
            o = specs.pod(node.pointer)
            if o is None:
                continue
            meta, status = _obj(o, "metadata"), _obj(o, "status")
            ann = {k: v for k, v in _obj(meta, "annotations").items() if isinstance(v, str)}
            if self.gpushare_on:
                cards, count = gs.new_gpu_devices(node.name, _obj(status, "capacity"), ann, MAX_DEVICES)
                if cards is not None:
                    self.cards[node.idx] = cards
                elif count > MAX_DEVICES:
                    self.warn(f"plugin {NAME}: node {node.name!r} has {count} {gs.GPU_NUMBER} cards, more than "
                              f"Gangplank's limit of {MAX_DEVICES}: it has no GPU devices here (Volcano would build them "
                              "all)")  # fmt: skip
                elif count == 0 and gs.GPU_NUMBER in _obj(status, "capacity") and gs.GPU_MEMORY in _obj(status, "capacity"):
                    self.warn(f"plugin {NAME}: node {node.name!r} capacity {gs.GPU_NUMBER} is 0 (or no quantity): no GPU "
                              "devices, as in Volcano")  # fmt: skip
            if self.vgpu and vg.REGISTER in ann:
                if "allocatable" not in status or not vg.node_allocatable_ok(status.get("allocatable")):
                    continue
                devices, note = vg.decode_node_devices(node.name, ann[vg.REGISTER], MAX_DEVICES, self.config)
                if devices is None:
                    self.warn(f"plugin {NAME}: node {node.name!r} annotation {vg.REGISTER} is not read ({note}): it has "
                              "no vGPU devices, as in Volcano")  # fmt: skip
                    continue
                if not devices.device:
                    continue
                if self.policy not in (vg.BINPACK, vg.SPREAD) and set(devices.device) != set(range(len(devices.device))):
                    self.warn(f"plugin {NAME}: node {node.name!r} annotation {vg.REGISTER} has an entry without a ',' "
                              "before its last device: Volcano's scheduler fails on it (nil device) under the legacy "
                              "order; here the missing ids are skipped")  # fmt: skip
                self.vgpus[node.idx] = devices
            if self.npu_types:
                self._read_npus(node, status, ann)

    def _read_npus(self, node: Any, status: dict, ann: dict[str, str]) -> None:
        """``NewAscendDevices``: per vNPU type, the node's devices when its allocatable holds the
        type's resource (non-zero) and its registration annotation decodes to some device."""
        alloc = status.get("allocatable")
        if not isinstance(alloc, dict):
            return
        types: dict[str, npu.AscendDevices] = {}
        for conf in self.npu_types:
            raw = alloc.get(conf.resource)
            if raw is None or not devq.value(raw):
                continue
            key = npu.REGISTER.format(conf.common_word)
            core = npu.node_hami_core(ann, self.npu_core)
            if key not in ann:
                self.warn(f"plugin {NAME}: node {node.name!r} has allocatable {conf.resource} but no annotation {key}: "
                          f"no {conf.common_word} devices, as in Volcano (pods asking them pass the device check there)")  # fmt: skip
                continue
            devices, why = npu.decode_node_devices(ann[key], MAX_DEVICES)
            if devices is None:
                self.warn(f"plugin {NAME}: node {node.name!r} annotation {key} is not read ({why}): it has no "
                          f"{conf.common_word} devices, as in Volcano")  # fmt: skip
                continue
            # (``NewAscendDevices``' map: a later entry of the same commonWord replaces the earlier)
            types[conf.common_word] = npu.node_devices(conf, devices, core)
        if types:
            self.npus[node.idx] = sorted(types.values(), key=lambda a: self._npu_rank[a.config.common_word])

    def _wrap(self) -> None:
        """``wrapGPUDevicesForExclusivity``: each hami-core vGPU node's exclusivity state, from
        the pods on it (every status that holds the node)."""
        on: dict[int, list[Task]] = {}
        for t in self.ssn.cluster.active_tasks:
            if t.node in self.vgpus and t.status.holds_node:
                on.setdefault(t.node, []).append(t)
        for n, devices in self.vgpus.items():
            devices.exclusive = gx.wrap(devices, self.rules, [(t.key, self._uid(t), t.labels, t.annotations)
                                                              for t in on.get(n, ())])  # fmt: skip

    def _matched(self, t: Task) -> tuple[int, ...]:
        """The exclusivity rules the pod matches (``matchingRules``)."""
        return gx.matching(t.labels, self.rules) if self.rules else ()

    def _fit(self, devices: vg.VgpuDevices, reqs: list[vg.Request], t: Task, matched: tuple[int, ...],
             replicate: bool) -> tuple[str | None, list[list[vg.Used]], float]:  # fmt: skip
        """vGPU's fit (``vg.fit``) as the exclusivity wrapper's ``FilterNode`` / ``Allocate`` run
        it: the cards the pod's rules hold capped for the call."""
        ex = devices.exclusive
        reserved = ex.reserved(matched) if matched and ex is not None else None
        if not reserved:
            return vg.fit(devices, reqs, t.annotations, t.namespace, self.policy, replicate)
        saved = gx.cap(devices, reserved)
        try:
            return vg.fit(devices, reqs, t.annotations, t.namespace, self.policy, replicate)
        finally:
            gx.restore(devices, saved)

    def _existing(self) -> None:
        """The pods on the nodes with devices (``NodeInfo.AddTask``: not Releasing or Pipelined).
        Of the pods on their own held as columns, those that may hold a device are built: on a
        node with cards, a pod asking GPU memory or cards (gpushare adds no other); on a node
        with vGPU devices, every pod (vGPU reads any pod's annotation)."""
        c = self.ssn.cluster
        if not self.has.any():
            return
        inert = c.inert
        if inert is not None:
            on = np.where(inert.nodes >= 0, inert.nodes, 0)
            placed = inert.nodes >= 0
            pick = placed & self.has[on] & ~self.has_cards[on]
            cols = [c.resources.index[n] for n in (gs.GPU_MEMORY, gs.GPU_NUMBER) if n in c.resources.index]
            if cols:
                pick |= placed & self.has_cards[on] & (c.task_req[inert.rows][:, cols] > 0).any(axis=1)
            c.materialize(np.flatnonzero(pick))
        for k, t in enumerate(c.active_tasks):
            if k % 256 == 255 and self.ssn.out_of_time():
                self.expired = True
                return
            if t.node >= 0 and self.has[t.node] and t.status not in (TaskStatus.RELEASING, TaskStatus.PIPELINED) \
                    and t.status.holds_node:
                self._add_resource(t)

    # -- the pods ---------------------------------------------------------------------------------
    def facts(self, t: Task) -> tuple[int, int, bool, list[vg.Request], bool]:
        """(gpushare memory, gpushare cards, asks gpushare, vGPU requests, asks vGPU)."""
        hit = self._facts.get(t.key)
        if hit is None:
            ctrs, inits = self._containers(t)
            mem = gs.pod_gpu_memory([lim for lim, _ in ctrs], [lim for lim, _ in inits]) if self.gpushare_on else 0
            num = gs.pod_gpu_number([lim for lim, _ in ctrs], [lim for lim, _ in inits]) if self.gpushare_on else 0
            wants = (self.sharing and mem > 0) or (self.number and num > 0)
            has_vgpu = self.vgpu and vg.has_request(ctrs, self.config)
            hit = self._facts[t.key] = (mem, num, wants, vg.requests(ctrs, self.config) if has_vgpu else [], has_vgpu)
        return hit

    def npu_facts(self, t: Task) -> tuple[list[list[npu.Request] | None], bool]:
        """Per vNPU type of the config: the pod's raw requests when it asks the type
        (``HasDeviceRequest``), else None; and whether it asks hami-core devices."""
        hit = self._npu_facts.get(t.key)
        if hit is None:
            if not self.npu_types:
                hit = ([], False)
            else:
                ctrs, _ = self._containers(t)
                hit = ([npu.raw_requests(c, ctrs) if npu.has_request(c, ctrs) else None for c in self.npu_types],
                       t.annotations.get(npu.MODE) == npu.HAMI_CORE)  # fmt: skip
                if any(r is not None for r in hit[0]):
                    ignored = sorted({n for c in self.npu_types for n in (c.memory_resource, f"{c.resource}-core")
                                      for lim, req in ctrs if n in lim or n in req})  # fmt: skip
                    for name in ignored:  # (one warning per resource, naming the first pod met)
                        if name not in self._npu_ignored:
                            self._npu_ignored[name] = t.key
                            self.warn(f"plugin {NAME}: pods ask {name} (e.g. {t.key}): Volcano leaves it out of the "
                                      "plain resource check (IgnoredDevicesList); here the node's allocatable is checked "
                                      "for it as for any resource")  # fmt: skip
            self._npu_facts[t.key] = hit
        return hit

    def _npu_asked(self, t: Task, n: int) -> list[tuple[npu.AscendDevices, list[npu.Request]]]:
        """The node's vNPU types the pod asks, with its raw requests for each."""
        types = self.npus.get(n)
        if not types:
            return []
        reqs, _ = self.npu_facts(t)
        if not any(r is not None for r in reqs):
            return []
        out = []
        for ads in types:
            r = reqs[self._npu_index[ads.config]]  # (the pod read with the names of the entry the node's type came from)
            if r is not None:
                out.append((ads, r))
        return out

    def _npu_sig(self, t: Task) -> tuple:
        """What of the pod a vNPU fit reads (its asks per type, hami-core mode)."""
        reqs, core = self.npu_facts(t)
        return tuple(None if r is None else tuple(r) for r in reqs), core

    def _npu_refusal(self, t: Task, n: int, sig: tuple) -> str | None:
        """The vNPU types' ``FilterNode`` in order: the first refusal (``npu.ERROR`` /
        ``npu.UNSCHEDULABLE``), else None."""
        key = ("npu", n, int(self._version[n]), sig)
        hit = self._fit_cache.get(key)  # (a pure function of the node's devices and the pod's asks)
        if hit is None:
            if len(self._fit_cache) > FIT_CACHE_MAX:
                self._fit_cache.clear()
            out, ties = None, []
            core = self.npu_facts(t)[1]
            for ads, raw in self._npu_asked(t, n):
                why, _, tie = npu.select(ads, raw, self.policy, core)
                if tie & npu.TIE_FIT:
                    ties.append(ads.config.common_word)
                if why is not None:
                    out = why
                    break
            hit = self._fit_cache[key] = (out, tuple(ties))  # type: ignore[assignment]
        for cw in hit[1]:  # type: ignore[union-attr]
            self._npu_tie(t, n, cw, "whether it fits there (the memory a request without memory takes, or the "
                                    "devices its earlier containers leave to the later ones)", self.policy)  # fmt: skip
        return hit[0]  # type: ignore[return-value,index]

    def _npu_tie(self, t: Task, n: int, cw: str, what: str, policy: str) -> None:
        """Warn (once per type, what and policy, naming the first pod and node met) that
        Volcano's random order among equal-scored devices decides ``what`` for a pod on a node,
        and which order Gangplank takes."""
        why = (f"policy {policy!r} scores every device 0" if policy not in (npu.BINPACK, npu.SPREAD) else
               f"devices of equal {policy} score")  # fmt: skip
        key = (cw, what, why)
        if key in self._npu_tie_noted:
            return
        self._npu_tie_noted.add(key)
        self.warn(f"plugin {NAME}: {cw} devices: for a pod (e.g. {t.key} on node {self.ssn.cluster.nodes[n].name!r}), "
                  f"{what} depends on Volcano's order among {why}, which is random (a map range and sort.Slice, "
                  "device_info.go getDeviceSnapshot / selectDevices / selectDevicesWithTopology); Gangplank takes them in the order "
                  f"of the node's {npu.REGISTER.format(cw)} list (networks: the first met), so Volcano may answer "
                  "differently")  # fmt: skip

    def _containers(self, t: Task) -> tuple[Containers, Containers]:
        specs = self._objects()
        o = specs.pod(t.pointer) if specs is not None and t.pointer.startswith("/objects/") else None
        if o is None:  # (a native pod: its requests are one container's limits and requests)
            names = self.ssn.cluster.resources.names
            one = {names[i]: format_quantity(names[i], int(t.req[i])) for i in np.flatnonzero(t.req)} if t.req is not None else {}
            return [(one, one)], []
        spec = _obj(o, "spec")

        def read(key: str) -> Containers:
            out = []
            for ctr in spec.get(key) if isinstance(spec.get(key), list) else ():
                res = _obj(ctr, "resources") if isinstance(ctr, dict) else {}
                out.append((_obj(res, "limits"), _obj(res, "requests")))
            return out

        return read("containers"), read("initContainers")

    def asks(self, t: Task) -> bool:
        """The pod asks an enabled device (``HasDeviceRequest``): its answers change as pods land."""
        f = self.facts(t)
        return f[2] or f[4] or any(r is not None for r in self.npu_facts(t)[0])

    @staticmethod
    def _uid(t: Task) -> str:
        return t.uid or t.key

    # -- predicate and score ---------------------------------------------------------------------
    def predicate(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        mask = np.ones(len(nodes), dtype=bool)
        mem, num, wants, reqs, has_vgpu = self.facts(task)
        has_npu = any(r is not None for r in self.npu_facts(task)[0])
        if not (wants or has_vgpu or has_npu):
            return mask
        if self.expired:  # (the devices are partly read: no node with devices passes; `truncated`)
            self.ssn.out_of_time()
            return mask & ~self.has[nodes]
        if self.ssn.resolvable_pass:  # (a device refusal is Unschedulable: an eviction may resolve it)
            if has_vgpu and self.weight > 0 and not self.ssn.out_of_time():
                # FilterNode runs all the same (PredicateForPreemptAction): each node it passes
                # leaves its score for the node order that follows
                self._vgpu_fits(task, reqs, nodes[self.has[nodes]])
            if has_npu:
                # a vNPU ``Error`` (no device; several devices with partial memory) is no
                # Unschedulable: PredicateForPreemptAction refuses the node, unless an NVIDIA
                # device refused it first (Unschedulable)
                sig = self._npu_sig(task)
                errs = [j for j in range(len(nodes)) if int(nodes[j]) in self.npus
                        and self._npu_refusal(task, int(nodes[j]), sig) == npu.ERROR]  # fmt: skip
                if errs:
                    first = self._nvidia_mask(task, nodes[errs]) if wants or has_vgpu else np.ones(len(errs), bool)
                    mask[np.asarray(errs, dtype=np.intp)[first]] = False
            return mask
        mask = self._nvidia_mask(task, nodes)
        if has_npu:
            if self.ssn.out_of_time():
                return mask & ~self.has[nodes]
            sig = self._npu_sig(task)
            for j in np.flatnonzero(mask).tolist():
                n = int(nodes[j])
                if n in self.npus and self._npu_refusal(task, n, sig) is not None:
                    mask[j] = False
        return mask

    def _nvidia_mask(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        """gpushare's and vGPU's ``FilterNode`` (Volcano's predicate tries them before vNPU)."""
        mask = np.ones(len(nodes), dtype=bool)
        mem, num, wants, reqs, has_vgpu = self.facts(task)
        if wants:  # (gpushare's FilterNode, over the kept per-node figures)
            cards = self.has_cards[nodes]
            if self.sharing and mem > 0 and mem > INT64_MAX:  # (beyond the figures' range: card by card)
                for j in np.flatnonzero(cards).tolist():
                    mask[j] = bool(self.cards[int(nodes[j])].by_memory(mem))
            elif self.sharing and mem > 0:
                mask &= ~cards | (self.max_idle[nodes] >= mem)
            if self.number and num > 0:
                mask &= ~cards | (self.idle_cards[nodes] >= num)
        if has_vgpu:
            if self.ssn.out_of_time():  # (the request's deadline: no node it would check passes; `truncated`)
                return mask & ~self.has[nodes]
            fits = self._vgpu_fits(task, reqs, nodes[self.has[nodes] & mask])
            for j in np.flatnonzero(self.has[nodes] & mask).tolist():
                mask[j] = fits.get(int(nodes[j]), True)
        return mask

    def _vgpu_fits(self, task: Task, reqs: list[vg.Request], nodes: np.ndarray) -> dict[int, bool]:
        """``FilterNode`` on each of ``nodes`` with vGPU devices: whether the pod fits; each
        success leaves its score as the node's (``GPUDevices.Score``, what ``ScoreNode`` returns).
        A node's answer is remembered for its devices' state and the pod's request and
        annotations the fit reads (a fit is a pure function of them)."""
        a = task.annotations
        spread = a.get(vg.GROUP_POLICY) == vg.SPREAD
        matched = self._matched(task)
        sig = (tuple(reqs), a.get(vg.MODE), spread, vg.group_key(task.namespace, a) if spread else "",
               a.get(vg.USE_TYPE), a.get(vg.NOUSE_TYPE), a.get(vg.USE_UUID), a.get(vg.NOUSE_UUID), matched)  # fmt: skip
        if len(self._fit_cache) > FIT_CACHE_MAX:
            self._fit_cache.clear()
        out = {}
        for n in nodes.tolist():
            devices = self.vgpus.get(n)
            if devices is None:
                continue
            key = (n, int(self._version[n]), sig)
            hit = self._fit_cache.get(key)
            if hit is None:
                why, _, s = self._fit(devices, reqs, task, matched, True)
                hit = self._fit_cache[key] = (why is None, s)
            out[n] = hit[0]
            if hit[0]:
                self.vgpu_score[n] = hit[1]
        return out

    def _cards_changed(self, n: int) -> None:
        if self._opening:  # (the session's opening refreshes each node once, after its pods)
            return
        cards = self.cards[n]
        self.card_scans += len(cards.memory)
        self.max_idle[n] = min(max(cards.idle_memory().values(), default=-1), INT64_MAX)  # (clamped: see predicate)
        self.idle_cards[n] = sum(1 for p in cards.pods.values() if not p)

    def score(self, task: Task, nodes: np.ndarray) -> np.ndarray:
        """``getDeviceScore``: the vGPU score the node's last successful filter left (Volcano's
        ``ScoreNode`` returns ``GPUDevices.Score``; the allocate actions filter the pod first)."""
        out = np.zeros(len(nodes), dtype=np.float64)
        has_vgpu = self.facts(task)[4]
        reqs, core = self.npu_facts(task)
        has_npu = any(r is not None for r in reqs)
        if not (has_vgpu or has_npu):
            return out
        sig = self._npu_sig(task)
        for j in np.flatnonzero(self.has[nodes]).tolist():
            n = int(nodes[j])
            asked = self._npu_asked(task, n) if has_npu else []
            if not ((has_vgpu and n in self.vgpus) or asked):
                continue
            s = self.vgpu_score.get(n, 0.0) if has_vgpu and n in self.vgpus else 0.0
            # (the vNPU ``ScoreNode``: it also sets the type's policy; not for a node Volcano
            # takes unscored, the allocate action's only candidate)
            scored = not self.ssn.sole_candidate
            for ads, raw in asked:
                if scored and ads.policy != self.policy:
                    self._log_node(n)
                key = (n, int(self._version[n]), ads.config.common_word, sig)
                hit = self._npu_scores.get(key)
                if hit is None:
                    if len(self._npu_scores) > FIT_CACHE_MAX:
                        self._npu_scores.clear()
                    hit = self._npu_scores[key] = npu.score_node(ads, raw, self.policy, core)
                if scored:
                    ads.policy = self.policy
                got, panics, ties = hit
                if ties:
                    self._npu_tie(task, n, ads.config.common_word, "its score (which devices, of which networks, "
                                  "ScoreNode counts)", self.policy)  # fmt: skip
                if panics and ("panic", ads.config.common_word) not in self._npu_noted:  # (once per type)
                    self._npu_noted.add(("panic", ads.config.common_word))
                    self.warn(f"plugin {NAME}: a container asking {ads.config.common_word} is given no device (a count "
                              f"of 0 or less; e.g. pod {task.key} on node {self.ssn.cluster.nodes[n].name!r}): Volcano's "
                              "ScoreNode panics here (an index out of range); Gangplank scores it 0")  # fmt: skip
                s += got
            out[j] = float(vg.go_round_score(s)) * float(self.weight)
        return out

    # -- events ---------------------------------------------------------------------------------------
    def _add_resource(self, t: Task) -> None:
        """``NodeInfo.addResource``: what the pod's own annotations list."""
        mem, num, _, _, _ = self.facts(t)
        cards = self.cards.get(t.node)
        if cards is not None and (mem > 0 or num > 0):
            cards.add(self._uid(t), mem, gs.gpu_index(t.annotations))
            self._cards_changed(t.node)
        devices = self.vgpus.get(t.node)
        if devices is not None and vg.IDS in t.annotations:
            key = vg.group_key(t.namespace, t.annotations)
            self._panics(t, vg.add_pod(devices, self._uid(t), vg.decode_pod_devices(t.annotations[vg.IDS]), key))
        if devices is not None and devices.exclusive is not None:  # (not at open: wrapped after)
            devices.exclusive.add_resource(devices, t.key, self._uid(t), self._matched(t))
        for ads in self.npus.get(t.node, ()):
            key = npu.ALLOCATED.format(ads.config.common_word)
            text = t.annotations.get(key)
            if text is None:
                continue
            entries = npu.decode(text)
            if entries is None:
                if ("short", key) not in self._npu_noted:  # (once per annotation key: bounded)
                    self._npu_noted.add(("short", key))
                    self.warn(f"plugin {NAME}: pods' annotation {key} has an entry of fewer than 4 fields (e.g. pod "
                              f"{t.key}): Volcano's DecodeContainerDevices fails and reads none of it (the pod holds no "
                              "device there), as here")  # fmt: skip
                continue
            missing = npu.add_pod(ads, self._uid(t), entries)
            if missing and ("missing", key) not in self._npu_noted:  # (once per annotation key: bounded)
                self._npu_noted.add(("missing", key))
                self.warn(f"plugin {NAME}: pods' annotation {key} names devices their node has no "
                          f"{ads.config.common_word} device of (e.g. pod {t.key} names {', '.join(map(repr, missing[:3]))} "
                          f"on node {self.ssn.cluster.nodes[t.node].name!r}; an entry after a ';' starts with it, as "
                          "Volcano reads the annotation): Volcano skips them, as here")  # fmt: skip

    def _sub_resource(self, t: Task) -> None:
        """``NodeInfo.subResource``."""
        mem, num, _, _, _ = self.facts(t)
        cards = self.cards.get(t.node)
        if cards is not None and (mem > 0 or num > 0):
            cards.remove(self._uid(t), gs.gpu_index(t.annotations))
            self._cards_changed(t.node)
        devices = self.vgpus.get(t.node)
        if devices is not None and vg.IDS in t.annotations:
            self._panics(t, vg.sub_pod(devices, self._uid(t), vg.decode_pod_devices(t.annotations[vg.IDS])))
        if devices is not None and devices.exclusive is not None:
            devices.exclusive.sub_resource(devices, t.key, self._uid(t))
        self._npu_release(t, False)

    def _npu_release(self, t: Task, asked_only: bool) -> None:
        """``SubResource`` of each vNPU type of the node (``Release``: the types the pod asks)."""
        for ads in self.npus.get(t.node, ()):
            if asked_only and not any(a is ads for a, _ in self._npu_asked(t, t.node)):
                continue
            npu.sub_pod(ads, self._uid(t), t.annotations.get(npu.ALLOCATED.format(ads.config.common_word)))

    def _panics(self, t: Task, note: str) -> None:
        if note:
            self.warn(f"plugin {NAME}: pod {t.key} on node {self.ssn.cluster.nodes[t.node].name!r}: {note}: Volcano's "
                      "scheduler panics here (an index out of range); Gangplank skips that device entry")  # fmt: skip

    def _node_event(self, t: Task, placed: bool) -> bool:
        """``NodeInfo.AddTask`` / ``RemoveTask`` of a task on a node with devices (a pipelined
        one adds and removes nothing); True when the ``predicates`` plugin's handler follows."""
        if t.node < 0 or not self.has[t.node]:
            return False
        self._version[t.node] += 1  # (its vGPU devices may change: remembered fits no longer hold)
        self._log_node(t.node)
        if t.status is not TaskStatus.PIPELINED:
            (self._add_resource if placed else self._sub_resource)(t)
        return self.allocating

    def _log_node(self, n: int) -> None:
        """The node's devices as they are, logged once per save epoch (Gangplank's trials)."""
        if self._epoch and self._logged.get(n) != self._epoch:
            cards, devices, types = self.cards.get(n), self.vgpus.get(n), self.npus.get(n)
            self._log.append((n, cards.copy() if cards is not None else None,
                              devices.copy() if devices is not None else None,
                              [a.copy() for a in types] if types is not None else None, self._logged.get(n)))  # fmt: skip
            self._logged[n] = self._epoch
            self.trial_copies += 1

    def _allocated(self, t: Task) -> None:
        if not self._node_event(t, True):
            return
        mem, num, wants, reqs, has_vgpu = self.facts(t)
        cards = self.cards.get(t.node)
        if wants and cards is not None:
            ids = cards.allocate(self._uid(t), mem, num)
            self._cards_changed(t.node)
            if ids is None:
                self._failed(t, "no card has the pod's GPU memory idle" if mem > 0 else "too few idle cards")
            elif ids:
                self._assigned[t.key] = {gs.GPU_INDEX: ",".join(map(str, ids))}
        devices = self.vgpus.get(t.node)
        if has_vgpu and devices is not None:
            matched = self._matched(t)
            why, taken, _ = self._fit(devices, reqs, t, matched, False)
            if why is not None:
                self._failed(t, why)
                return
            vg.add_to_pod_map(devices, self._uid(t), taken, vg.group_key(t.namespace, t.annotations))
            if matched and devices.exclusive is not None:
                devices.exclusive.allocated(devices, t.key, self._uid(t), matched)
            self._assigned[t.key] = {vg.IDS: vg.encode_pod_devices(taken)}
        core = self.npu_facts(t)[1]
        for ads, raw in self._npu_asked(t, t.node):  # (the vNPU ``Allocate``, with the type's policy)
            why, taken, ties = npu.select(ads, raw, ads.policy, core)
            if ties:
                self._npu_tie(t, t.node, ads.config.common_word, "which devices its Allocate takes" +
                              ("" if ads.policy else " (no ScoreNode ran on this node in the session: the type's "
                                                     "policy is still '')"), ads.policy)  # fmt: skip
            if why is not None:
                self._failed(t, f"no {ads.config.common_word} device fits the pod")
                return
            cw = ads.config.common_word
            text = npu.encode(taken, cw)
            if npu.add_pod(ads, self._uid(t), npu.decode(text) or []) and ("later", cw) not in self._npu_noted:
                self._npu_noted.add(("later", cw))  # (once per type: bounded)
                self.warn(f"plugin {NAME}: {cw} devices: for a pod of several containers (e.g. {t.key} on node "
                          f"{self.ssn.cluster.nodes[t.node].name!r}) the devices of its containers after the first are "
                          "not taken in the session: Volcano's Allocate reads back its own annotation split at ':' "
                          "only (an entry after ';' names no device), as here")  # fmt: skip
            self._assigned[t.key] = {**self._assigned.get(t.key, {}), npu.ALLOCATED.format(cw): text,
                                     npu.TO_ALLOCATE.format(cw): text}  # fmt: skip

    def _failed(self, t: Task, why: str) -> None:
        """The ``predicates`` handler's ``event.Err``: the Statement takes the placement back and
        its ``Allocate`` / ``Pipeline`` fails (reclaim and preempt try the next node)."""
        then = ("Volcano's undone eviction ignores the error, as here" if self.ssn.undoing else
                "Volcano takes the placement back, as here")  # fmt: skip
        self.ssn.fail_allocation(why)
        self.warn(f"plugin {NAME}: Volcano's device allocation of pod {t.key} on node "
                  f"{self.ssn.cluster.nodes[t.node].name!r} fails ({why}): {then}")  # fmt: skip

    def _deallocated(self, t: Task) -> None:
        if not self._node_event(t, False):
            return
        self._assigned.pop(t.key, None)
        _, _, wants, _, has_vgpu = self.facts(t)
        cards = self.cards.get(t.node)
        if wants and cards is not None:
            cards.remove(self._uid(t), gs.gpu_index(t.annotations))
            self._cards_changed(t.node)
        devices = self.vgpus.get(t.node)
        if has_vgpu and devices is not None and vg.IDS in t.annotations:
            self._panics(t, vg.sub_pod(devices, self._uid(t), vg.decode_pod_devices(t.annotations[vg.IDS])))
        if has_vgpu and devices is not None and devices.exclusive is not None:  # (the wrapper's ``Release``)
            devices.exclusive.untrack(devices, t.key, self._uid(t))
        self._npu_release(t, True)

    def on_session_close(self) -> None:
        """For ``/v1/simulate``: a pod the decision binds carries into the next cycle the device
        annotation Volcano's bind gives it (``volcano.sh/gpu-index``, ``volcano.sh/vgpu-ids-new``;
        not the times and phases, which no scheduler reads); an evicted pod loses them (its
        controller makes a new pod)."""
        if not getattr(self, "gpushare_on", False) and not getattr(self, "vgpu", False) \
                and not getattr(self, "npu_types", ()):
            return
        if not self._assigned and not self.ssn.decision.evictions:
            return
        tasks = self.ssn.cluster.task_index
        for b in self.ssn.decision.bindings:
            ann = self._assigned.get(b.pod)
            if ann is not None and b.pod in tasks:
                tasks[b.pod].annotations = {**tasks[b.pod].annotations, **ann}
        for e in self.ssn.decision.evictions:
            t = tasks.get(e.pod)
            drop = {gs.GPU_INDEX, vg.IDS, *(f.format(c.common_word) for c in self.npu_types
                                             for f in (npu.ALLOCATED, npu.TO_ALLOCATE))}  # fmt: skip
            if t is not None and drop & t.annotations.keys():
                t.annotations = {k: v for k, v in t.annotations.items() if k not in drop}

    # -- Gangplank's trials ---------------------------------------------------------------------------
    def _save(self) -> Any:
        """A save point: the log's mark, in a new epoch (the next change of each node logs it)."""
        saved = (len(self._log), self._epoch, dict(self._assigned), dict(self.vgpu_score))
        self._epochs += 1
        self._epoch = self._epochs
        return saved

    def _restore(self, saved: Any) -> None:
        """The nodes changed since the save point, as they were (the log popped back to its
        mark, latest first, so each node ends as its earliest entry left it), back in the epoch
        the save point was made in (each node's log mark as it was then)."""
        mark, epoch, assigned, score = saved
        touched = set()
        while len(self._log) > mark:
            n, cards, devices, types, logged = self._log.pop()
            if logged is None:
                self._logged.pop(n, None)
            else:
                self._logged[n] = logged
            if cards is not None:
                self.cards[n] = cards
            if devices is not None:
                self.vgpus[n] = devices
            if types is not None:
                self.npus[n] = types
            touched.add(n)
        self._assigned = dict(assigned)
        self.vgpu_score = dict(score)
        for n in touched:
            if n in self.cards:
                self._cards_changed(n)
            self._version[n] += 1
        self._epoch = epoch  # (the save's enclosing epoch again: what it logged still holds)


def _obj(o: Any, key: str) -> dict:
    v = o.get(key) if isinstance(o, dict) else None
    return v if isinstance(v, dict) else {}


#: what the config loader asks of a partially modelled plugin (name -> its unmodelled arguments)
PARTIAL: dict[str, Callable[[Any], list[tuple[str, str]]]] = {NAME: unmodelled_arguments}
