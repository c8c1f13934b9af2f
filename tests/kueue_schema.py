"""Kueue's Workload CRD schema for ``status.admission``, to check that an answer of
``/v1/admissions`` can be written into a Workload unchanged.

``tests/kueue_schemas/workload-admission.<version>.json`` are the ``status.admission``
subtrees of both served versions of ``config/components/crd/bases/kueue.x-k8s.io_workloads.yaml``
(kubernetes-sigs/kueue, commit ff69552e79ad21652c36caa97038382e55625cf7, 2026-08-22; the
``$comment`` of each file says so). The structural schema is checked with ``jsonschema``;
its CEL rules (``x-kubernetes-validations``), which ``jsonschema`` does not run, are
transcribed below, one check each.
"""

from __future__ import annotations

import functools
import json
import pathlib
from typing import Any

import jsonschema

HERE = pathlib.Path(__file__).resolve().parent / "kueue_schemas"


@functools.cache
def _validator(version: str) -> jsonschema.Draft7Validator:
    schema = json.loads((HERE / f"workload-admission.{version}.json").read_text())
    schema.pop("$comment", None)
    return jsonschema.Draft7Validator(schema)


def _cel_v1beta2(admission: dict[str, Any]) -> list[str]:
    out = []
    for i, psa in enumerate(admission.get("podSetAssignments") or []):
        ta = psa.get("topologyAssignment")
        if not ta:
            continue
        at = f"podSetAssignments[{i}].topologyAssignment"
        # self.slices.all(x, size(x.valuesPerLevel) == size(self.levels))
        if not all(len(s.get("valuesPerLevel", [])) == len(ta.get("levels", [])) for s in ta.get("slices", [])):
            out.append(f"{at}: valuesPerLevel must have the same length as the number of levels")
        for j, s in enumerate(ta.get("slices", [])):
            pc, n = s.get("podCounts", {}), s.get("domainCount")
            # !has(self.podCounts.individual) || size(self.podCounts.individual) == self.domainCount
            if "individual" in pc and len(pc["individual"]) != n:
                out.append(f"{at}.slices[{j}]: podCounts.individual must have length equal to domainCount")
            # self.valuesPerLevel.all(x, !has(x.individual) || size(x.individual.roots) == self.domainCount)
            if not all("individual" not in lv or len(lv["individual"].get("roots", [])) == n for lv in s.get("valuesPerLevel", [])):
                out.append(f"{at}.slices[{j}]: valuesPerLevel.individual roots must have length equal to domainCount")
            # [has(self.universal), has(self.individual)].filter(x, x == true).size() == 1
            if ("universal" in pc) + ("individual" in pc) != 1:
                out.append(f"{at}.slices[{j}].podCounts: exactly one of universal, individual")
            # has(self.universal) != has(self.individual)
            for k, lv in enumerate(s.get("valuesPerLevel", [])):
                if ("universal" in lv) == ("individual" in lv):
                    out.append(f"{at}.slices[{j}].valuesPerLevel[{k}]: exactly one of universal, individual")
    return out


def admission_problems(admission: dict[str, Any], api_version: str) -> list[str]:
    """What Kueue's API server would refuse in ``status.admission`` of a Workload of
    ``api_version`` (``kueue.x-k8s.io/v1beta1`` or ``v1beta2``); empty: it accepts it."""
    version = api_version.rsplit("/", 1)[-1]
    out = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in _validator(version).iter_errors(admission)]
    if version == "v1beta2":
        out += _cel_v1beta2(admission)
    return out


def check_answer(answer: dict[str, Any]) -> None:
    """The answer is one the OpenAPI document publishes (``AdmissionResponse``: every reason
    and owner kind among its literals; JSON types in lax mode), and every admitted Workload's
    ``admission`` passes its version's schema. (Called by the tests' ``post`` helper.)"""
    from api_schemas.admissions import AdmissionResponse

    AdmissionResponse.model_validate(answer, strict=False)
    for w in answer["workloads"]:
        if w.get("admission") is not None:
            problems = admission_problems(w["admission"], w["apiVersion"])
            assert not problems, (w["workload"], problems)
