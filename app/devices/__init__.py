"""Device models of Volcano's ``deviceshare`` plugin (``pkg/scheduler/api/devices``): what a
node's devices are, what a pod asks of them, whether it fits, and which device it takes.

* :mod:`app.devices.gpushare`: NVIDIA GPU sharing by memory and by whole cards
  (``volcano.sh/gpu-memory``, ``volcano.sh/gpu-number``).
* :mod:`app.devices.vgpu`: HAMi vGPU (``volcano.sh/vgpu-number`` / ``-memory`` / ``-cores``).
* :mod:`app.devices.quantity`: Go's ``Quantity.Value()`` / ``AsInt64()`` and fixed-width integer
  conversions the models' arithmetic relies on.

The models are plain data and pure functions; ``app.plugins.deviceshare`` keeps one per node
with devices for a session and calls them from its predicate, score and event handlers.
"""
