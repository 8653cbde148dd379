"""Training MaskablePPO (sb3-contrib) against Dale and by self-play."""
