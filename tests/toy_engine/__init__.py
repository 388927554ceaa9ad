"""A tiny engine, defined outside the package: proof that adding an engine is one
subpackage plus one registry line (``docs/adding_an_engine.md``).

Engine ``toy``: every agent keeps the plain local mean of its own samples, no
collaboration; its average MSE is Proposition 1's sigma^2 / t, the Local curve every
table already carries, so the simulation is checked against a closed form.
"""
