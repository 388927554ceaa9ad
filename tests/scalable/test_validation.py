"""colme's C-ColME and B-ColME against the numbers of the authors' public simulator stored in
validation/galante_aaai25/ (docs/validation.md): a fresh, smaller run of the engine on the
shared setting agrees with them within Monte Carlo error (both standard errors)."""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "validation" / "galante_aaai25"


def compare_module():
    spec = importlib.util.spec_from_file_location("galante_compare", FOLDER / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("variant", ["c_colme/default", "b_colme/default"])
def test_a_fresh_run_agrees_with_the_simulators_stored_numbers(variant):
    """20 runs (colme) against the simulator's 100-200 seeds at t = 2 .. 2000: |z| < 4 at
    every compared t of every curve (the algorithm, its oracle; 12 t x 2-6 curves, so a
    4-sigma bound keeps the family's false-alarm rate below 1 % for independent errors)."""
    compare = compare_module()
    colme = compare.simulate(20, (variant,))
    table = compare.z_table(colme, pd.read_csv(FOLDER / "simulator_mse.csv"))
    ours = table[table["algorithm"] != "local"]
    assert len(ours) >= 2 * len(compare.COMPARED_T) - 2  # every curve was compared
    worst = ours.loc[ours["z"].abs().idxmax()]
    assert np.all(ours["z"].abs() < 4.0), worst.to_dict()


def test_the_simulators_local_curve_is_sigma2_over_t():
    """The stored simulator numbers are what they say: its running mean's MSE is sigma^2/t
    (sigma = 2) within its standard error."""
    simulator = pd.read_csv(FOLDER / "simulator_mse.csv")
    local = simulator[simulator["algorithm"] == "local"]
    z = (local["mse"] - 4.0 / local["t"]) / local["se"]
    assert len(local) > 10 and np.all(np.abs(z) < 4.0)
