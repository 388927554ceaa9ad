"""Figures made from other figures: views and sweeps, knowing no paper.

* ``zoom``: another figure's table redrawn over a shorter t range;
* ``scaling``: simulated figures side by side, and their kernel time per step against M;
* ``sweeps``: a figure over one or two parameters, each point a simulated figure.

Their schema definitions are ``schema.yaml`` here.  Each engine is handed the engine
registry (``colme.registry``) when it is made, to draw and check the figures it reads;
the points of a sweep are generated and validated by ``colme.expansion``.
"""
