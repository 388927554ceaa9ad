"""PriCER: private collaborative relaying for mean estimation over intermittent links.

Saha, Seif, Yemini, Goldsmith, Poor, "Collaborative Mean Estimation over Intermittently
Connected Networks with Peer-To-Peer Privacy", arXiv:2303.00035, 2023.

Model (Sec. II): n nodes hold x_i in R^d with ||x_i|| <= R.  Node i reaches the server
(PS) with tau_i ~ Ber(p_i) and node j with tau_ij ~ Ber(p_ij), p_ii = 1; the reciprocity
term E_{i,j} = E[tau_ij tau_ji] (>= p_ij p_ji).  Node i sends alpha_ij x_i + n_ij to node j
(n_ij ~ N(0, sigma^2 I_d)); node j relays the sum of what it received (Algorithm 1) and the
PS averages what reaches it (Algorithm 2).

Index convention (as in Lemma 3.1 and Theorem 4.1): ``A[i, j] = alpha_ij`` is the weight node
i applies to its own x_i when sending to node j, ``P[i, j] = p_ij`` is the link i -> j.

What is here:

* validation of (p, P, E) and of the privacy levels (clear ``PricerError`` messages);
* Lemma 3.1 (3), Theorem 3.2 (4)-(5), its convex relaxation (13), Theorem 4.1 (6);
* a vectorised Monte Carlo simulator of Algorithms 1-2 and the naive strategy of Sec. VI;
* Algorithm 3: sigma_thr, the sigma update (10), Gauss-Seidel over rows (14) with the
  per-row solution (15)-(19) (lambda_i by bisection) on (13), then fine tuning with (20);
* an exact reference for (8): sigma_tv^2 is the variance of sum_ij alpha_ij tau_j tau_ij
  (divided by n^2), a PSD quadratic form, and the privacy constraints are linear in
  (A, sigma), so (8) is a convex QP; ``optimise_joint`` minimises it exactly (Algorithm 3's
  A-step inside a search over sigma) and ``scipy_reference`` solves it with SLSQP;
* the tables of PriCER Figs. 2, 3 and 4 and their plots.

Modules, along the paper's seams: ``model`` (network, privacy levels, validation),
``privacy`` (Theorem 4.1), ``bounds`` (Lemma 3.1, Theorem 3.2), ``simulation``
(Algorithms 1-2), ``optimisation`` (Algorithm 3, the joint optimum of (8)) and
``figures`` (PriCER Figs. 2-4).
"""

from .bounds import (  # noqa: F401
    check_constraints,
    coefficient_covariance,
    exact_mse,
    naive_mse,
    objective,
    quadratic_form,
    reciprocity_excess,
    sigma_pr2,
    sigma_tv2,
    sigma_tv2_relaxed,
    unbiasedness_residual,
)
from .figures import (  # noqa: F401
    feasible_set_table,
    fig2_instance,
    fig3_instance,
    fig4_instance,
    good_nodes,
    heavy_tailed_data,
    plot_pricer,
    pricer_fig3_table,
    pricer_fig4_table,
    solution_checks,
    table_for,
    trust_matrix,
    trust_offsets,
    trust_privacy,
)
from .model import (  # noqa: F401
    Network,
    PricerError,
    Privacy,
    make_network,
    make_privacy,
)
from .optimisation import (  # noqa: F401
    PricerResult,
    gauss_seidel,
    initial_weights,
    nonprivate_optimise,
    optimise_joint,
    optimise_weights,
    pricer_optimise,
    row_update,
    scipy_reference,
    solve_lambda,
)
from .privacy import (  # noqa: F401
    gaussian_factor,
    link_epsilons,
    privacy_report,
    sigma_threshold,
    sigma_update,
    weight_caps,
)
from .simulation import (  # noqa: F401
    sample_links,
    simulate_estimates,
    simulate_naive,
    squared_errors,
)
