"""Laplacian consensus weights, written as a researcher's own weight rule
(colme.ccolme.weight_rules; docs/decision_rules.md, "Your own mixing weights").

The idea of mixing by a graph Laplacian in a personalized ColME setting is taken from
CL-ColME (Stankovic, 2026, arXiv 2602.06070).  The formula here is the standard Laplacian
consensus, written from its definition, not transcribed from that paper: with A^(t) the
accepted graph (A_ab = 1 iff b in C_a^(t), b != a) and L^(t) = D^(t) - A^(t) its Laplacian,

    W^(t) = I - step L^(t):   W_ab = step for accepted b,   W_aa = 1 - step (|C_a^(t)| - 1).

As a cap this is q = step, the same for every agent, so W_ab = min(q_a, q_b) = step.

What keeps W doubly stochastic and non-negative: L is symmetric with zero row sums
whenever the decisions are symmetric (every decision rule's are), so W's rows and
columns sum to 1 for any step; W_aa >= 0 needs step <= 1/(|C_a| - 1) for every agent, i.e.
step <= 1/(largest |C_a| - 1) = 1/r on an r-regular graph, where an agent accepting all its
neighbours has |C_a| = r + 1.  The workflow checks this before any job and refuses a
larger step (step < 1/r keeps every W_aa > 0 too).
"""


def laplacian(size, degree, n_agents, step):
    """The cap q = step of Laplacian consensus W = I - step L (the module docstring)."""
    return step
