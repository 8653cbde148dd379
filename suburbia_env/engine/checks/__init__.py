"""Consistency checks of a state vector: what a reachable state of the engine satisfies."""
