"""A researcher's own decision rule (colme.ccolme.decision_rules): one interface for the
built-in rules and theirs, compiled into the same kernel; bad rule files refused before
any job, naming the file and the function; an edited file reruns exactly its figures."""

import math
import re
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from colme import claims
from colme.config import ConfigError
from colme.expansion import expand_config
from colme.registry import ENGINES, stage_params

ROOT = Path(__file__).resolve().parents[2]
BASE = {
    "engine": "ccolme", "n_agents": 24, "degree": 4, "t_max": 150, "runs": 2, "chunk_runs": 2,
    "grid": {"linear": 15, "log": 10},
}


def figure(tmp_path, monkeypatch, rules, own, **settings):
    """A figure's resolved settings, the rule files copied under ``tmp_path`` (the
    workflow's folder: rule files are relative to it)."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "experiments" / "rules", tmp_path / "rules", dirs_exist_ok=True)
    entry = {**BASE, "rules": rules, "decision_rules": own, **settings}
    return expand_config({"seed": 5, "figures": {"f": entry}}).figures["f"]


def simulate(settings):
    engine = ENGINES["ccolme"]
    instances = engine.instances(stage_params(settings, "instances", 0, 2), "f", 0, 2)
    out = engine.simulate(stage_params(settings, "simulate", 0, 2), instances, "f")
    return {name: out["mse"][:, i] for i, name in enumerate(out["curves"])}, out["diagnostics"]


COPY = {"file": "rules/bernstein.py", "function": "bernstein_copy"}


@pytest.mark.parametrize("population", [{}, {"population": {"sigma": [0.3, 0.5, 0.9]}}], ids=["shared", "mixed"])
def test_a_user_copy_of_bernstein_gives_the_builtin_numbers_bit_for_bit(tmp_path, monkeypatch, population):
    settings = figure(tmp_path, monkeypatch, ["bernstein", "mine"], {"mine": COPY},
                      eps=[1, math.inf], theta_k=[8, 7], **population)
    mse, diagnostics = simulate(settings)
    for eps in ("1", "inf"):
        assert np.array_equal(mse[f"bernstein eps={eps}"], mse[f"mine eps={eps}"])
    assert np.array_equal(diagnostics[:, :2], diagnostics[:, 2:], equal_nan=True)  # type-I/II rates, flips


def test_a_rule_with_parameters_gets_its_own_values_per_curve(tmp_path, monkeypatch):
    """One function, two parameter sets, one panel: with a gap no difference resolves the
    rule refuses everybody, as Bernstein does while theta_t = 2 (k = 100: t <= 1.5^100),
    bit for bit; with a huge gap it accepts every neighbour, which changes the numbers."""
    rule = {"file": "rules/resolution.py", "function": "resolution"}
    settings = figure(
        tmp_path, monkeypatch, ["bernstein", "never", "always"],
        {"never": {**rule, "params": {"gap": 1e-12}}, "always": {**rule, "params": {"gap": 1e9, "confidence": 1e-9}}},
        eps=[2], theta_k=[100],
    )
    assert settings["decision_rules"]["always"]["params"] == {"gap": 1e9, "confidence": 1e-9}
    mse, _ = simulate(settings)
    assert np.array_equal(mse["never eps=2"], mse["bernstein eps=2"])
    assert not np.array_equal(mse["always eps=2"], mse["never eps=2"])


HEADER = "def threshold(t, sigma_a, sigma_b, sigma_dp_a, sigma_dp_b, beta_pair, theta, degree, n_agents):\n"
BAD_FILES = {
    "no_function": ("def other(t):\n    return 1.0\n", r"defines no function 'threshold'; its functions: \['other'\]"),
    "wrong_arguments": ("def threshold(t, sigma):\n    return 1.0\n", r"must take the arguments \['t', 'sigma_a'"),
    "not_compiled": ("import fractions\n\n\n" + HEADER + "    return float(fractions.Fraction(1, 3))\n",
                     r"Numba cannot compile bad\.py:threshold"),
    "nan": ("import math\n\n\n" + HEADER + "    return math.sqrt(-1.0) if t > 20 else 1.0\n",
            r"bad\.py:threshold returns nan at \{'t': 21,"),
    "import_error": ("import not_a_module\n", r"bad\.py cannot be imported: ModuleNotFoundError"),
    # Between the probe's points: every step up to t_max is evaluated, at the panel's own arguments
    "nan_between_probes": ("import math\n\n\n" + HEADER + "    return math.nan if 8 <= t < 20 else 1.0\n",
                           (r"bad\.py:threshold returns nan at \{'t': 8, 'sigma_a': 0\.5, .*'n_agents': 24\}.*"
                            r"every step up to t_max is checked")),
    "raises_at_7": (HEADER + "    if t == 7:\n        raise ValueError('no threshold at t = 7')\n    return 1.0\n",
                    r"bad\.py:threshold raises ValueError: no threshold at t = 7 at \{'t': 7,"),
    "minus_infinity": ("import math\n\n\n" + HEADER + "    return -math.inf if t > 100 else 1.0\n",
                       r"returns -inf at \{'t': 101, .*a threshold must be a number \(one <= 0 accepts no neighbour"),
    "not_compiled_whole_message": ("import fractions\n\n\n" + HEADER + "    return float(fractions.Fraction(1, 3))\n",
                                   r"Numba cannot compile bad\.py:threshold:\n.*Fraction.*During: typing"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_bad_rule_file_is_refused_before_any_job_naming_file_and_function(tmp_path, monkeypatch, case):
    source, message = BAD_FILES[case]
    (tmp_path / "bad.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    entry = {**BASE, "rules": ["mine"], "decision_rules": {"mine": {"file": "bad.py", "function": "threshold"}}}
    with pytest.raises(ConfigError, match=r"(?s)figures\.f\.decision_rules\.mine.*" + message):
        expand_config({"figures": {"f": entry}})


def test_a_rule_is_checked_up_to_the_horizon_only(tmp_path, monkeypatch):
    """NaN after t_max = 150 is never seen by a job: the figure is accepted."""
    (tmp_path / "late.py").write_text("import math\n\n\n" + HEADER + "    return math.nan if t > 150 else 1.0\n")
    monkeypatch.chdir(tmp_path)
    entry = {**BASE, "rules": ["late"], "decision_rules": {"late": {"file": "late.py", "function": "threshold"}}}
    assert expand_config({"figures": {"f": entry}}).figures["f"]["t_max"] == 150
    with pytest.raises(ConfigError, match=r"returns nan at \{'t': 151"):
        expand_config({"figures": {"f": {**entry, "t_max": 300}}})


@pytest.mark.parametrize(("own", "rules", "message"), [
    ({"mine": {"file": "missing.py", "function": "f"}}, ["mine"],
     r"decision_rules\.mine\.file: 'missing\.py' is not a file"),
    ({"mine": {**COPY, "params": {"k": 1}}}, ["mine"], r"decision_rules\.mine\.params: \['k'\] are not parameters"),
    ({"mine": {"file": "rules/resolution.py", "function": "resolution"}}, ["mine"],
     r"decision_rules\.mine\.params: .*resolution needs a value for \['gap'\]"),
    ({"bernstein": COPY}, ["bernstein"], r"decision_rules\.bernstein: 'bernstein' is a built-in rule's name"),
    ({}, ["bernstien"], r"rules\[0\]: 'bernstien' is neither a built-in rule \['oracle', 'bernstein', 'optimistic'\]"),
])
def test_bad_rule_entries_name_the_key(tmp_path, monkeypatch, own, rules, message):
    with pytest.raises(ConfigError, match=r"figures\.f\." + message):
        figure(tmp_path, monkeypatch, rules, own)


def test_editing_a_rule_file_changes_the_params_of_exactly_the_figures_using_it(tmp_path, monkeypatch):
    """A job reruns when its params change (tests/workflow/test_reruns.py): the file's digest
    is in the params of the figures that use it, and of no other."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "experiments" / "rules", tmp_path / "rules")
    config = {"figures": {
        "uses": {**BASE, "rules": ["oracle", "mine"], "decision_rules": {"mine": COPY}},
        "declares": {**BASE, "rules": ["oracle"], "decision_rules": {"mine": COPY}},
        "plain": {**BASE, "rules": ["oracle"]},
    }}

    def params():
        settings = expand_config(config).figures
        return {name: (stage_params(s, "instances", 0, 2), stage_params(s, "simulate", 0, 2))
                for name, s in settings.items()}

    before = params()
    assert before["declares"] == before["plain"]  # a rule declared but not drawn is not a setting
    path = tmp_path / "rules" / "bernstein.py"
    path.write_text(path.read_text() + "\n# an edit\n")
    after = params()
    assert after["uses"][1] != before["uses"][1] and after["uses"][0] == before["uses"][0]
    unchanged = ("declares", "plain")
    assert {name: after[name] for name in unchanged} == {name: before[name] for name in unchanged}


def test_a_job_refuses_a_rule_file_edited_after_planning(tmp_path, monkeypatch):
    settings = figure(tmp_path, monkeypatch, ["mine"], {"mine": COPY}, eps=[1], theta_k=[8])
    params = stage_params(settings, "simulate", 0, 2)
    (tmp_path / "rules" / "bernstein.py").write_text(textwrap.dedent("""
        def bernstein_copy(t, sigma_a, sigma_b, sigma_dp_a, sigma_dp_b, beta_pair, theta, degree, n_agents):
            return 0.0
    """))
    with pytest.raises(ConfigError, match=r"changed since this job was planned"):
        ENGINES["ccolme"].spec(params)


def test_a_sweep_runs_over_a_rule_parameter(tmp_path, monkeypatch):
    """A user rule's parameter is a numeric key of its figure like any other: a sweep's axis."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "experiments" / "rules", tmp_path / "rules")
    rule = {"file": "rules/resolution.py", "function": "resolution", "params": {"gap": 0.2}}
    config = {"figures": {
        "base": {**BASE, "rules": ["bernstein", "res"], "decision_rules": {"res": rule}},
        "gaps": {"engine": "sweep", "base": "base", "summary": {"kind": "ratio_to_local"},
                 "axes": [{"key": "decision_rules.res.params.gap", "values": [0.1, 0.4]}]},
    }}
    points = expand_config(config).sweep_figures
    gaps = {name: s["decision_rules"]["res"]["params"] for name, s in points.items()}
    assert gaps == {"gaps__decision_rules_res_params_gap0p1": {"gap": 0.1},
                    "gaps__decision_rules_res_params_gap0p4": {"gap": 0.4}}
    simulate_params = {name: stage_params(s, "simulate", 0, 2) for name, s in points.items()}
    assert len({str(p) for p in simulate_params.values()}) == 2  # each point its own numbers


def test_the_example_figure_draws_the_builtin_rules_on_the_same_instances(monkeypatch):
    """experiments/decision_rules.yaml, small: its built-in curves are those of the same
    figure without the researcher's rule, bit for bit (same instances, draws and noise),
    so the published comparison is paired run by run."""
    import yaml

    monkeypatch.chdir(ROOT)
    entry = yaml.safe_load((ROOT / "experiments" / "decision_rules.yaml").read_text())["figures"]["exp_own_rule"]
    small = {**entry, "n_agents": 30, "degree": 4, "t_max": 120, "runs": 2, "grid": {"linear": 10, "log": 5}}
    without = {**small, "rules": [r for r in small["rules"] if r not in small["decision_rules"]]}
    settings = expand_config({"seed": 5, "figures": {"f": small, "g": without}}).figures
    assert "resolution" in settings["f"]["rules"] and "resolution" not in settings["g"]["rules"]
    with_rule, _ = simulate(settings["f"])
    engine = ENGINES["ccolme"]
    instances = engine.instances(stage_params(settings["g"], "instances", 0, 2), "f", 0, 2)
    plain = engine.simulate(stage_params(settings["g"], "simulate", 0, 2), instances, "f")
    for index, name in enumerate(plain["curves"]):
        assert np.array_equal(plain["mse"][:, index], with_rule[name]), name


def test_sensitivity_variants_and_claims_read_a_user_rules_curves_like_the_builtins(tmp_path, monkeypatch):
    """A claim-bearing figure with a researcher's rule gets its sensitivity variants, each
    with the rule's file by its digest; a claim about the user's copy of Bernstein gets the
    verdict and evidence the same claim about the built-in curve gets."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "experiments" / "rules", tmp_path / "rules", dirs_exist_ok=True)
    entry = {**BASE, "rules": ["bernstein", "mine"], "decision_rules": {"mine": COPY}, "eps": [1], "theta_k": [8],
             "runs": 4, "chunk_runs": 4}
    expansion = expand_config({"seed": 5, "figures": {"f": entry}}, claimed={"f"})
    variants = [v for v in expansion.variants if v.figure == "f" and v.option != "baseline"]
    assert {v.option for v in variants} >= {"alpha_reset", "weights", "bernstein_beta"}
    settings = expansion.figures["f"]
    digest = stage_params(settings, "simulate", 0, 4)["decision_rules"]["mine"]["sha256"]
    for variant in variants:
        params = stage_params(expansion.variant_settings[variant.name], "simulate", 0, 4)
        assert params["decision_rules"]["mine"]["sha256"] == digest
    engine = ENGINES["ccolme"]
    out = engine.simulate(stage_params(settings, "simulate", 0, 4),
                          engine.instances(stage_params(settings, "instances", 0, 4), "f", 0, 4), "f")
    table = pd.DataFrame([
        {"curve": curve, "t": float(t), "mse": float(mse.mean()), "se": float(mse.std(ddof=1) / 2.0), "runs": 4}
        for index, curve in enumerate(out["curves"]) for t, mse in zip(out["t"], out["mse"][:, index].T, strict=True)
    ])
    written = [{"id": f"{name}.{check}", "figure": "f", "claim": "", "check": check, "curve": f"{name} eps=1", **extra}
               for name in ("bernstein", "mine")
               for check, extra in (("decreasing", {}), ("exceeds", {"level": 1e-3}))]
    results = claims.evaluate(written, {"f": table}).set_index("id")
    for check in ("decreasing", "exceeds"):
        builtin, own = results.loc[f"bernstein.{check}"], results.loc[f"mine.{check}"]
        assert builtin["verdict"] == own["verdict"]
        assert builtin["measured"] == own["measured"].replace("mine", "bernstein")


DEGREE_RULE = "import math\n\n\n" + HEADER + "    return math.nan if degree > 4.0 and t > 3 else 1.0\n"


def test_a_job_stops_where_its_runs_graph_gives_no_threshold_and_says_why(tmp_path):
    """On an Erdos-Renyi graph the rule is checked at the expected mean degree (4, fine)
    before any job; a run whose graph has a larger mean degree meets the NaN in its job,
    which stops there naming the rule, t and the arguments, and Snakemake's output shows
    that error (not only the job's exit status)."""
    import subprocess

    import yaml
    from workflow_helpers import snakemake_command

    (tmp_path / "by_degree.py").write_text(DEGREE_RULE)
    entry = {**BASE, "graph": {"family": "erdos_renyi", "mean_degree": 4}, "eps": [1], "theta_k": [5],
             "rules": ["mine"], "decision_rules": {"mine": {"file": "by_degree.py", "function": "threshold"}}}
    entry.pop("degree")
    config = yaml.safe_dump({"seed": 5, "targets": ["f"], "figures": {"f": entry}})
    command = snakemake_command(tmp_path, "--cores", "1", config=config)
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    shown = r"RuleError: decision rule 'mine': by_degree\.py:threshold returns nan at \{'t': 4, .*'degree': 4\.\d+"
    assert re.search(shown, output), output[-3000:]
    assert "the job's log, with the traceback" in output
