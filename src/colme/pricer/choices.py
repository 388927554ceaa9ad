"""The choices made where PriCER (Saha et al., arXiv:2303.00035) is silent.

Every PriCER figure's provenance (PDF metadata, sidecar JSON, report caption) lists them.
"""

#: Every choice made where PriCER is silent (goes into the figures' metadata).
CHOICES = (
    (
        "Index convention: alpha_ij is the weight node i applies to x_i when sending to node j and "
        "p_ij the probability of the link i -> j, as in Lemma 3.1 (3) and Theorem 4.1; eq. (1)-(2) "
        "are read with the same convention (node j receives tau_ij (alpha_ij x_i + n_ij))."
    ),
    (
        "Noise is added on every link including the self link i -> i (Algorithm 1 line 5), and the "
        "privacy constraint of (8) is imposed on the self link too (eps_ii), as printed."
    ),
    (
        "Reciprocity E_{i,j}: links are independent (E_ij = p_ij p_ji) unless a figure says "
        "'full' (E_ij = min(p_ij, p_ji), the largest value compatible with the marginals)."
    ),
    (
        "Theorem 4.1 is applied as printed (classical Gaussian-mechanism calibration "
        "eps = sqrt(2 ln(1.25/delta)) * 2 alpha R / sigma) even for eps > 1, where the classical "
        "proof does not apply; eps = .inf means no privacy constraint on that link."
    ),
    (
        "Algorithm 3's outer loop is run literally, but sigma^(k) = sigma_thr for every k: the "
        "A-step keeps A feasible for sigma^(k-1), so (10) can never return more than sigma^(k-1) "
        "and never less than sigma_thr.  Algorithm 3 therefore minimises (11) at sigma = sigma_thr."
    ),
    (
        "Gauss-Seidel stages (L1: relaxation (13), L2: fine tuning (11) with (20)) stop after a "
        "sweep that changes no weight by more than gs_tol (1e-12 relative), or after L1/L2 sweeps "
        "(default 2000 each); lambda_i is bracketed by doubling and bisected until the set of "
        "clipped weights is fixed, then solved exactly on that piece of the piecewise-linear sum."
    ),
    (
        "Case c) (p_i = 1) sets alpha_ii = 1 (19) only when the self-link privacy cap allows it "
        "(w_ii >= 1); otherwise the row is solved like case b) with the zero-cost set "
        "{j: p_j p_ij = 1}, which then contains i.  Links with p_j p_ij = 0 get alpha_ij = 0 (17)."
    ),
    (
        "Case b) with S_i >= 1 and an infinite cap (no privacy) in the zero-cost set: the unit "
        "of unbiasedness is split equally among the uncapped zero-cost links."
    ),
    (
        "The initial A^(0) = diag(1/p_i) of Algorithm 3 uses 0 for a node with p_i = 0 (the "
        "Gauss-Seidel row update does not depend on the row's previous value except through "
        "(20)'s alpha_ji terms of other rows)."
    ),
    (
        "Extension, not in the paper: (8) is a convex QP (sigma_tv^2 = Var(sum_ij alpha_ij tau_j "
        "tau_ij) / n^2), so its global optimum is found by a convex 1-D search over sigma >= "
        "sigma_thr of min_A (11) + sigma_pr^2 ('joint optimum'); it can be below Algorithm 3 "
        "when a larger sigma loosens the privacy box enough to pay for the extra noise."
    ),
    (
        "Fig. 3: R = 1 (the worst-case MSE of (8) scales as R^2 at fixed eps, delta), d = 10 "
        "by default, p_c in {0.2, 0.5, 0.8}, independent links, and node i trusts its k nearest "
        "ring neighbours i+1, i-1, i+2, i-2, ... (mod n); y = objective (8) at Algorithm 3's "
        "output; the simulated points use the worst-case data x_i = R e_1 for every i, which "
        "attains the bound (4) with equality."
    ),
    (
        "Fig. 4: n = 10; eps = 1e3 on trusted links and on the self link, delta = 1e-3, R = 1; "
        "node i trusts its 6 nearest ring neighbours (i +- 1, 2, 3) with P_ij = 0.8 and has no "
        "link (P_ij = 0) to the others; the g good nodes are spread evenly over the ring; each "
        "realisation draws fresh data (N(0,1)^3 per coordinate, each x_i rescaled to ||x_i|| = R) "
        "and averages 'draws' independent link/noise draws; se is over realisations."
    ),
    (
        "Fig. 4 naive strategy: the PS computes (1/n) sum_i tau_i x_i (biased, no relaying, no "
        "privacy noise), as printed in Sec. VI."
    ),
    (
        "The Monte Carlo simulator draws the PS's aggregate privacy noise sum tau_j tau_ij n_ij / n "
        "as sigma sqrt(N) z / n with N the number of delivered noisy messages (exactly the same "
        "law as drawing every n_ij); the per-link mode draws every n_ij and is tested to agree."
    ),
    (
        "Fig. 2: n = 2, p = (0.6, 0.9), P_12 = P_21 = 0.7, eps_ii = 1, eps_12 = eps_21 = 0.5, "
        "delta = 1e-3, R = 1; boxes for sigma = {0.5, 1, 2} x sigma_thr of row i's constraints."
    ),
    ("Self-link variant (eps_self: .inf, figure pricer_fig3_no_self_privacy): no privacy "
     "constraint on the self link i -> i, i.e. alpha_ii is uncapped in (8), in sigma_thr, in the "
     "row updates (15)-(20), in the sigma step (10) and in the Theorem 4.1 report; Algorithm 1 "
     "line 5 still adds n_ii with the common sigma, so sigma_pr^2 (5) keeps its j = i terms.  "
     "With every p_i > 0, sigma_thr = 0, so Algorithm 3 (which stays at sigma_thr) returns "
     "A = diag(1/p_i), sigma = 0 whatever the trust (a finite-eps link's cap is 0 at sigma = 0); "
     "only the joint optimum uses the trusted links.  Fig. 2 keeps eps finite (its boxes are "
     "drawn at multiples of sigma_thr)."),
    ("Authors' code variant (figure pricer_fig3_authors_code): d = 128, p_c = 0.9, their trust "
     "sets and E = P, from github.com/rajarshisaha95/private-collaborative-relaying at 6be19bc "
     "(scripts/testbench.py, added in 2024, after the paper: dimension = 128, pc = 0.9, and for "
     "its loop parameter m node i trusts i-1 and i+1..i+m; src/objectives.py, 2023 and 2024: "
     "E_{i,l} = P_il, = min(p_il, p_li) = reciprocity 'full' for symmetric P).  "
     "trust_pattern authors_code takes the first k of "
     "i+1, i-1, i+2, i+3, ...: the x-axis stays the number k of trusted neighbours (k = m+1 for "
     "m >= 1; k = 1, which their loop cannot give, is {i+1}).  Kept from the paper, not from "
     "their scripts: p, eps_low = 0.1 (their scripts use 1e-2 or 1), eps_ii = eps_high, "
     "delta = 1e-3, the unbiasedness constraint, one common sigma and Algorithm 3 (their code "
     "runs gradient descent on per-link sigma_ij with a bias penalty)."),
)
