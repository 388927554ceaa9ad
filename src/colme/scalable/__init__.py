"""C-ColME and B-ColME: Galante, Neglia, Leonardi, "Scalable Decentralized Algorithms for
Online Personalized Mean Estimation", AAAI 2025 (arXiv 2402.12812), the algorithms
Private-C-ColME builds on, on the same instances and data streams.

Modules: ``spec`` (curves and the definitions where the paper and its authors' simulator
leave a choice), ``kernel`` (both algorithms, compiled, one directed link per decision).
"""
