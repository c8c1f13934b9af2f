"""Fuzzing targets (``make fuzz``)."""
