"""Every rule of Suburbia (docs/rules/RULES.md), compiled: numba kernels over one flat
int32 state vector per game, the tables they read, and the machinery that compiles them."""
