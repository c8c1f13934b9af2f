"""What preempt and reclaim share: bundles, ROI, victim order, validation, simulation."""
