"""The old home of agents/features.py. Model zips saved before the layered packages
name `training.features.SuburbiaFeatures` in their pickles, so this path stays, silent."""

import sys

from agents import features

sys.modules[__name__] = features
