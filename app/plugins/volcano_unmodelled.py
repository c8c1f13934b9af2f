"""Volcano plugins Gangplank accepts but does not model.

A ``volcano-scheduler.conf`` naming one of these loads (Volcano ships them); the plugin
decides nothing here, and the answer's ``warnings`` say so and what that means for it.
Each entry: what Volcano's plugin does, and what leaving it out changes.
"""

from __future__ import annotations

from app.framework.plugin import Plugin

UNMODELLED: dict[str, str] = {
    "extender": "the external HTTP extender is not called: its filters, scores and victim choices are missing",
    "rescheduling": "its rescheduling strategies (e.g. lowNodeUtilization) are not computed: shuffle evicts nothing "
                    "for them",
    "usage": "node usage from metrics is not in a snapshot: usage thresholds and usage-based scores are not applied",
}  # fmt: skip


class Unmodelled(Plugin):
    summary = "Volcano plugin accepted with a warning; decides nothing here"


def _plugin(plugin_name: str) -> type[Plugin]:
    return type(f"Unmodelled_{plugin_name.replace('-', '_')}", (Unmodelled,), {"name": plugin_name})


UNMODELLED_PLUGINS = [_plugin(n) for n in UNMODELLED]
