"""Training: MaskablePPO (sb3-contrib) against Dale and by self-play, and PPO with RLlib
on Ray (rllib_train.py)."""
