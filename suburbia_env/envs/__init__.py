"""Thin environment shells over the engine: Gymnasium, vector, SB3, PettingZoo, OpenSpiel."""
