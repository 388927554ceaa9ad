"""A researcher's own Private-ColME decision rule (colme.private_colme.decision_rules): the
paper's test and theirs through one interface, compiled into the same kernel; bad rule
files refused before any job; an edited file reruns exactly its figures; sensitivity
variants and claims read a user rule's figure like any other."""

import shutil
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from colme import claims
from colme.config import ConfigError
from colme.expansion import expand_config
from colme.private_colme.decision_rules import PAPER, paper_test
from colme.registry import ENGINES, stage_params

ROOT = Path(__file__).resolve().parents[2]
COPY = {"file": "rules/private_colme.py", "function": "z_test_copy"}
UNION = {"file": "rules/private_colme.py", "function": "union_bound"}
KNOWN = {"engine": "private_colme", "n_agents": 16, "t_max": 60, "runs": 2, "chunk_runs": 2,
         "grid": {"linear": 12, "log": 6}, "eps": 1.0, "schedules": ["rr", "rrr"], "mechanisms": ["pm1", "pm2"],
         "weights": ["last"], "noises": ["gaussian"]}
ESTIMATED = {**KNOWN, "curves": [
    {"schedule": s, "mechanism": "pm1", "weights": "last", "noise": "gaussian", "variance": v}
    for s in ("rr", "rrr") for v in ("schvar1", "schvar2", "schvar2_bayes")
]}


def figures(tmp_path, monkeypatch, claimed=(), **entries):
    """The figures' resolved settings (and the expansion), the example rules copied under
    ``tmp_path`` (the workflow's folder: rule files are relative to it)."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "experiments" / "rules", tmp_path / "rules", dirs_exist_ok=True)
    return expand_config({"seed": 5, "figures": entries}, claimed=set(claimed))


def simulate(settings):
    engine = ENGINES["private_colme"]
    instances = engine.instances(stage_params(settings, "instances", 0, 2), "f", 0, 2)
    return engine.simulate(stage_params(settings, "simulate", 0, 2), instances, "f")


@pytest.mark.parametrize("panel", [KNOWN, ESTIMATED], ids=["known_variance", "estimated_variance"])
@pytest.mark.parametrize("retest", ["query", "every_step"])
def test_a_user_copy_of_the_papers_test_gives_its_numbers_bit_for_bit(tmp_path, monkeypatch, panel, retest):
    expansion = figures(tmp_path, monkeypatch, paper={**panel, "retest": retest},
                        mine={**panel, "retest": retest, "decision_rule": COPY})
    paper, mine = (simulate(expansion.figures[name]) for name in ("paper", "mine"))
    assert list(paper["curves"]) == list(mine["curves"])
    assert np.array_equal(paper["mse"], mine["mse"])
    assert np.array_equal(paper["diagnostics"], mine["diagnostics"], equal_nan=True)


def test_the_paper_test_is_the_z_test_and_the_welch_test():
    """Sec. III-C1: z_theta^2 (sigma^2/t + Var T); Sec. V: the Welch test keeps b until it can run."""
    z_lower = -1.96
    assert paper_test(10.0, 0.1, 0.3, 5.0, 1.0, 0.05, z_lower, 1.0, 20.0) == z_lower * z_lower * 0.4
    assert paper_test(1.0, 0.0, 0.3, 5.0, 0.0, 0.05, z_lower, 1.0, 20.0) == np.inf
    welch = paper_test(10.0, 0.1, 0.3, 5.0, 0.0, 0.05, z_lower, 1.0, 20.0)
    assert welch > z_lower * z_lower * 0.4  # Student's t has heavier tails than the normal
    assert PAPER.bound(10.0, 0.1, 0.3, 5.0, 1.0, 0.05, z_lower, 1.0, 20.0) == z_lower * z_lower * 0.4


def test_a_rule_parameter_reaches_the_kernel(tmp_path, monkeypatch):
    """union_bound's ``scale``: 0 keeps nobody once b has answered (RR has queried every
    agent by t = M - 1), a huge one keeps everybody; the shares of C_a say so exactly."""
    expansion = figures(tmp_path, monkeypatch,
                        never={**KNOWN, "schedules": ["rr"], "decision_rule": {**UNION, "params": {"scale": 0.0}}},
                        always={**KNOWN, "schedules": ["rr"], "decision_rule": {**UNION, "params": {"scale": 1e300}}})
    assert expansion.figures["never"]["decision_rule"]["params"] == {"scale": 0.0}
    never, always = (simulate(expansion.figures[name])["diagnostics"] for name in ("never", "always"))
    # diagnostics: (runs, curves, [classmates, others, releases], t); the last t is 60 > M - 1
    assert np.all(never[:, :, :2, -1] == 0.0)
    assert np.all(always[:, :, :2, -1] == 1.0)


HEADER = "def bound(t, own_var, other_var, other_count, known, theta, z_lower, sigma_dp, n_agents):\n"
BAD_FILES = {
    "no_function": ("def other(t):\n    return 1.0\n", r"defines no function 'bound'; its functions: \['other'\]"),
    "wrong_arguments": ("def bound(t, gap):\n    return 1.0\n", r"must take the arguments \['t', 'own_var'"),
    "not_compiled": ("import fractions\n\n\n" + HEADER + "    return float(fractions.Fraction(1, 3))\n",
                     r"Numba cannot compile bad\.py:bound"),
    "nan": ("import math\n\n\n" + HEADER + "    return math.sqrt(-1.0) if t > 20 else 1.0\n",
            r"bad\.py:bound returns nan at \{'t': 30"),
    "minus_infinity": ("import math\n\n\n" + HEADER + "    return -math.inf\n", r"bad\.py:bound returns -inf"),
    "import_error": ("import not_a_module\n", r"bad\.py cannot be imported: ModuleNotFoundError"),
    "missing_file": (None, r"file: 'bad\.py' is not a file"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_rule_file_is_refused_before_any_job_naming_file_and_function(tmp_path, monkeypatch, case):
    source, message = BAD_FILES[case]
    if source is not None:
        (tmp_path / "bad.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    entry = {**KNOWN, "decision_rule": {"file": "bad.py", "function": "bound"}}
    with pytest.raises(ConfigError, match=r"figures\.f\.decision_rule.*" + message):
        expand_config({"figures": {"f": entry}})


def test_unknown_rule_parameters_name_the_key(tmp_path, monkeypatch):
    with pytest.raises(ConfigError, match=r"figures\.f\.decision_rule\.params: \['k'\] are not parameters"):
        figures(tmp_path, monkeypatch, f={**KNOWN, "decision_rule": {**UNION, "params": {"k": 1}}})


def test_editing_a_rule_file_changes_the_params_of_exactly_the_figures_using_it(tmp_path, monkeypatch):
    entries = {"uses": {**KNOWN, "decision_rule": COPY}, "plain": KNOWN,
               "other": {**KNOWN, "decision_rule": {"file": "rules/bernstein.py", "function": "bernstein_copy"}}}
    # bernstein_copy is a Private-C-ColME rule: it has the wrong arguments here
    with pytest.raises(ConfigError, match=r"figures\.other\.decision_rule: .*must take the arguments"):
        figures(tmp_path, monkeypatch, **entries)
    del entries["other"]

    def params():
        settings = expand_config({"figures": entries}).figures
        return {name: (stage_params(s, "instances", 0, 2), stage_params(s, "simulate", 0, 2))
                for name, s in settings.items()}

    before = params()
    assert "decision_rule" not in before["plain"][1]  # a figure without one: the params of before the key
    path = tmp_path / "rules" / "private_colme.py"
    path.write_text(path.read_text() + "\n# an edit\n")
    after = params()
    assert after["uses"][1] != before["uses"][1] and after["uses"][0] == before["uses"][0]
    assert after["plain"] == before["plain"]


def test_a_job_refuses_a_rule_file_edited_after_planning(tmp_path, monkeypatch):
    settings = figures(tmp_path, monkeypatch, f={**KNOWN, "decision_rule": COPY}).figures["f"]
    params = stage_params(settings, "simulate", 0, 2)
    (tmp_path / "rules" / "private_colme.py").write_text(textwrap.dedent("""
        def z_test_copy(t, own_var, other_var, other_count, known, theta, z_lower, sigma_dp, n_agents):
            return 0.0
    """))
    with pytest.raises(ConfigError, match=r"changed since this job was planned"):
        ENGINES["private_colme"].spec(params)


def test_sensitivity_variants_and_claims_read_a_user_rules_figure_like_any_other(tmp_path, monkeypatch):
    """A claim-bearing figure with a researcher's rule gets its sensitivity variants (the
    retest flip keeps the rule), and claims check its table as they check the paper's: on
    the copy of the paper's test, every verdict and its evidence are the paper figure's."""
    expansion = figures(tmp_path, monkeypatch, claimed=["mine"], paper=KNOWN, mine={**KNOWN, "decision_rule": COPY})
    flips = [v for v in expansion.variants if v.figure == "mine" and v.option == "retest"]
    assert flips
    for variant in flips:
        settings = expansion.variant_settings[variant.name]
        assert settings["retest"] == "every_step"
        assert stage_params(settings, "simulate", 0, 2)["decision_rule"]["sha256"]
    tables = {}
    for name in ("paper", "mine"):
        out = simulate(expansion.figures[name])
        tables[name] = pd.DataFrame([
            {"curve": curve, "t": float(time), "mse": float(mse.mean()), "se": float(mse.std(ddof=1) / np.sqrt(2)),
             "runs": 2}
            for index, curve in enumerate(out["curves"]) for time, mse in zip(out["t"], out["mse"][:, index].T,
                                                                              strict=True)
        ])
    first, second = tables["paper"]["curve"].unique()[:2]
    for check in (lambda t: claims.decreasing(t, first), lambda t: claims.closeness(t, first, second),
                  lambda t: claims.ordering(t, first, second)):
        assert check(tables["mine"]) == check(tables["paper"])


def test_colmes_optimistic_test_as_a_rule(tmp_path, monkeypatch):
    """experiments/rules/colme.py: COLME's overlap of confidence intervals, (beta_a + beta_b)^2
    with beta(n) = sigma sqrt((2/n)(1 + 1/n) ln(sqrt(n + 1) 4 M / delta)), +inf below two
    samples; a figure naming it runs, and its wider intervals keep more of the other class
    than the z-test at t = 60."""
    import math

    expansion = figures(tmp_path, monkeypatch, paper={**KNOWN, "schedules": ["rr"]},
                        colme={**KNOWN, "schedules": ["rr"],
                               "decision_rule": {"file": "rules/colme.py", "function": "optimistic"}})
    rule = ENGINES["private_colme"].spec(stage_params(expansion.figures["colme"], "simulate", 0, 2)).decision_rule
    sigma2, t, n = 0.25, 40.0, 30.0

    def beta(count):
        return math.sqrt(sigma2 * 2 / count * (1 + 1 / count) * math.log(math.sqrt(count + 1) * 4 * 16 / 0.1))

    bound = rule.bound(t, sigma2 / t, sigma2 / n, n, 1.0, 0.05, -2.0, 0.0, 16.0)
    assert bound == pytest.approx((beta(t) + beta(n)) ** 2, rel=1e-12)
    assert rule.bound(1.0, sigma2, sigma2, n, 1.0, 0.05, -2.0, 0.0, 16.0) == math.inf
    paper, colme = (simulate(expansion.figures[name])["diagnostics"] for name in ("paper", "colme"))
    others = 1  # diagnostics: the share of non-classmates in C_a
    assert np.all(colme[:, :, others, -1] > paper[:, :, others, -1])
