"""The published builds (docs/default, docs/paper) match the current configuration.

Fast: it reads the committed files only.  A figure added, removed or re-parameterised in
config.yaml, or a claim added or removed in workflow/claims.yaml, without republishing
(`python -m colme.publish`, see docs/results.md) fails here, so the published set cannot silently
go stale.
"""

import copy
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from colme.claims import HOLM, HOLM_DIAGNOSIS, diagnosis_counts, evaluate, load_claims, read_inputs, to_markdown
from colme.config import resolve_figure, resolve_runs
from colme.expansion import validate_config
from colme.provenance import canonical_json
from colme.publish import published_figures
from colme.registry import ALIASES, ENGINES, stage_params

ROOT = Path(__file__).resolve().parents[2]


def recorded_settings(meta: dict, preset: str) -> dict:
    """A provenance file's settings with an engine's old name read as its current one
    (``colme.registry.ALIASES``: a rename changes no number), and a count per preset
    inside a derived figure's mappings read as the preset's count (``resolve_runs``;
    provenance written before 2026-11-28 records the mapping, which ran the same runs)."""
    settings = copy.deepcopy(meta["settings"])
    settings["engine"] = ALIASES.get(settings.get("engine"), settings.get("engine"))
    resolve_runs(settings, preset)
    return settings
SHIPPED = yaml.safe_load((ROOT / "config.yaml").read_text())
CLAIM_IDS = [claim["id"] for claim in load_claims(ROOT / "workflow/claims.yaml")]


@pytest.fixture(params=["default", "paper"])
def published(request):
    folder = ROOT / "docs" / request.param
    assert (folder / "build.json").exists(), f"{folder} is not published"
    config = validate_config({**SHIPPED, "preset": request.param})
    return folder, config, json.loads((folder / "build.json").read_text())


def test_published_figures_are_the_configured_figures(published):
    folder, config, build = published
    figures, diagnosed = published_figures(config)
    assert build["preset"] == config["preset"] and build["seed"] == config["seed"]
    assert build["figures"] == figures and build["diagnostics_figures"] == diagnosed
    expected_png = {f"{f}.png" for f in figures} | {f"{f}_diagnostics.png" for f in diagnosed}
    assert {p.name for p in (folder / "figures").iterdir()} == expected_png
    assert {p.stem for p in (folder / "provenance").iterdir()} == set(figures)
    assert {p.stem for p in (folder / "tables").glob("*.csv")} >= set(figures)


def test_published_numbers_were_made_with_the_current_settings(published):
    """Each figure's recorded settings equal the current ones (keys added to the schema
    since are allowed), with the preset's run count."""
    folder, config, _ = published
    for figure in config["figures"]:
        settings = resolve_figure(config, figure)
        current = json.loads(canonical_json(stage_params(settings, "table")))
        meta = json.loads((folder / "provenance" / f"{figure}.json").read_text())
        if settings["engine"] == "zoom":  # its source's provenance, with the zoom recorded
            assert meta["zoom"] == {"source": settings["source"], "t_max": settings["t_max"]}, figure
            continue
        recorded = recorded_settings(meta, config["preset"])
        stale = {k for k in recorded if k in current and recorded[k] != current[k]}
        assert not stale, f"{folder.name}/{figure}: {sorted(stale)} changed since publication"
        if ENGINES[settings["engine"]].simulated:
            assert meta["runs"] == settings["runs"], figure
            table = pd.read_csv(folder / "tables" / f"{figure}.csv")
            simulated = table[table["kind"] == "simulated"] if "kind" in table else table[table["se"] > 0]
            assert len(simulated) and (simulated["runs"] == settings["runs"]).all(), figure


def test_published_claims_are_the_current_claims(published):
    folder, _, build = published
    claims = pd.read_csv(folder / "claims.csv")
    assert list(claims["id"]) == CLAIM_IDS
    assert build["claims"] == len(CLAIM_IDS)
    assert build["verdicts"] == claims["verdict"].value_counts().sort_index().to_dict()
    independent = claims["verdict (independent se)"]
    assert build["verdicts_independent_se"] == independent.value_counts().sort_index().to_dict()
    assert build["error_model_dependent"] == list(claims["id"][claims["verdict"] != independent])
    assert build["verdicts_holm"] == claims[HOLM].value_counts().sort_index().to_dict()
    assert build["moved_by_holm"] == list(claims["id"][claims["verdict"] != claims[HOLM]])
    assert build["origins"] == claims["origin"].value_counts().sort_index().to_dict()
    counts = diagnosis_counts(pd.read_csv(folder / "claims.csv", dtype=str, keep_default_na=False))
    assert {key: build[key] for key in counts} == counts  # causes, and re-readings apart
    assert f"{len(CLAIM_IDS)} claims:" in (folder / "claims.md").read_text()


def published_claims(folder: Path) -> pd.DataFrame:
    """The claims re-evaluated from the published tables alone (tidy, supplementary,
    covariance and diagnostics tables), as the claims rule evaluates them on results/."""
    tables = folder / "tables"
    return evaluate(load_claims(ROOT / "workflow/claims.yaml"), **read_inputs(
        [p for p in tables.glob("*.csv") if not p.name.endswith("_supplement.csv")],
        tables.glob("*_supplement.csv"), tables.glob("*_covariance.csv.gz"),
        tables.glob("*_diagnostics.csv.gz"),
    ))


def test_every_published_verdict_is_rederived_from_the_published_tables(published):
    """Every column of claims.csv (criterion, measured strings, verdicts under both error
    models, diagnoses) equals what the published tables give now: a table, a check or a
    claim edited without republishing fails here."""
    folder, _, _ = published
    recorded = pd.read_csv(folder / "claims.csv", dtype=str, keep_default_na=False)
    rederived = published_claims(folder)
    rederived = rederived.astype(str).where(rederived.notna(), "")  # NaN: an empty CSV cell
    assert list(recorded.columns) == list(rederived.columns)
    for column in recorded.columns:
        differ = recorded["id"][recorded[column] != rederived[column]]
        assert differ.empty, f"{folder.name}: {column} differs for {list(differ)}"
    assert (folder / "claims.md").read_text() == to_markdown(published_claims(folder))


def test_every_claim_not_reproduced_has_a_diagnosis(published):
    """A claim not reproduced (or inconclusive) with paired standard errors, independent
    ones or Holm's correction carries a diagnosis whose check ran (confirmed, not confirmed
    or inconclusive) for that column: a claim without one, or whose check could not run,
    fails here."""
    folder, _, _ = published
    claims = pd.read_csv(folder / "claims.csv", dtype=str, keep_default_na=False)
    missing = set()
    for verdict, diagnosis in (("verdict", "diagnosis verdict"),
                               ("verdict (independent se)", "diagnosis verdict (independent se)"),
                               (HOLM, HOLM_DIAGNOSIS)):
        ran = claims[diagnosis].isin(["confirmed", "not confirmed", "inconclusive"])
        open_ = (claims[verdict] != "reproduced") & ~ran
        missing |= {(claim, verdict) for claim in claims.loc[open_, "id"]}
    assert not missing, f"{folder.name}: no diagnosis for {sorted(missing)}"


EXPERIMENTS = sorted((ROOT / "experiments").glob("*.yaml"))
SUITES = sorted((ROOT / "suites").glob("*.yaml"))
#: The longest a published build of each kind may take on 2 cores at the default preset.
WALL_SECONDS = {"experiments": 180, "suites": 600}


#: Each published build of a file: (file, preset, folder); a suite at both presets.
PUBLISHED = [(p, "default", ROOT / "docs" / p.parent.name / p.stem) for p in EXPERIMENTS + SUITES] + [
    (p, "paper", ROOT / "docs" / "suites" / f"{p.stem}_paper") for p in SUITES]


@pytest.mark.parametrize(("path", "preset", "folder"), PUBLISHED,
                         ids=[f"{f.parent.name}/{f.name}" for _, _, f in PUBLISHED])
def test_published_experiments_match_their_files(path, preset, folder):
    """docs/experiments/<name>/ and docs/suites/<name>[_paper]/: the figures of the file's
    targets (PNG, tidy table, provenance) made with its current settings at the preset's
    run counts (a suite's default build in at most 10 minutes on 2 cores)."""
    from colme.config import update_config
    from colme.expansion import expand_config

    build = json.loads((folder / "build.json").read_text())
    assert build["preset"] == preset
    config = validate_config({**update_config(SHIPPED, yaml.safe_load(path.read_text())), "preset": preset})
    figures, _ = published_figures(config)
    assert build["figures"] == figures == sorted(config["targets"])
    limit = WALL_SECONDS[path.parent.name]
    if preset == "default":
        assert build["wall_seconds"] <= limit, f"{path.parent.name}: a build takes at most {limit} s on 2 cores"
    for figure in figures:
        assert (folder / "figures" / f"{figure}.png").exists()
        settings = resolve_figure(config, figure)
        meta = json.loads((folder / "provenance" / f"{figure}.json").read_text())
        current = json.loads(canonical_json(stage_params(settings, "table")))
        assert {k: recorded_settings(meta, preset)[k] for k in current} == current, figure
        table = pd.read_csv(folder / "tables" / f"{figure}.csv")
        assert {"curve", "t", "mse", "se", "runs"} <= set(table.columns)
        # a view (overlay, scaling) draws its sources' curves, a sweep its points', at their run counts
        if "runs" in settings:
            runs = [settings["runs"]]
        elif "sources" in settings:
            runs = [resolve_figure(config, source)["runs"] for source in settings["sources"]]
        elif "cells" in settings:  # a scorecard: its cells' run counts, as the file sets them now
            cells = expand_config(config).sweep_figures
            runs = [cells[f"{figure}__{suffix}"]["runs"] for suffix in settings["cells"]]
        else:
            runs = [point["runs"] for point in meta["points"].values()]
        assert table.loc[table["kind"] == "simulated", "runs"].isin(runs).all()


def test_the_readmes_claim_counts_are_the_published_builds():
    """The README's counts of claims, origins, verdicts (paired, independent, Holm) and
    diagnoses by evidence are markers (``colme.prose``) of docs/default and docs/paper's
    build.json, holding their values: a republication that changes them fails
    (test_prose_numbers) until ``python -m colme.docpages`` rewrites them."""
    from colme.prose import MARKER, published_values

    text = (ROOT / "README.md").read_text()
    values = published_values(ROOT)
    shown = dict(MARKER.findall(text))
    wanted = [f"default.{key}" for key in ("claims", "origin.paper", "origin.project", "origin.figure_reading",
                                           "paired", "independent", "holm", "evidence")]
    wanted += [f"paper.{key}" for key in ("paired", "independent", "holm", "evidence")]
    assert {key: shown.get(key) for key in wanted} == {key: values[key] for key in wanted}


def test_the_shipped_cards_cells_are_the_published_figures_bit_for_bit():
    """The default suite's world paper_r10 draws config.yaml's baselines_rules streams: its
    cells (built as figures of their own, in other chunks) give, at the horizon, the MSE of
    the published default build's baselines_rules and baselines_c_b_colme curves exactly."""
    card = pd.read_csv(ROOT / "docs/suites/default/tables/scorecard.csv")
    names = {"oracle": "oracle", "bernstein": "bernstein", "optimistic": "optimistic",
             "c_colme_authors": "C-ColME", "b_colme": "B-ColME d=2"}
    compared = 0
    for figure in ("baselines_rules", "baselines_c_b_colme"):
        table = pd.read_csv(ROOT / f"docs/default/tables/{figure}.csv")
        last = table[table["t"] == table["t"].max()].set_index("curve")
        for row in card[(card["world"] == "paper_r10") & card["curve"].isin(list(names))].itertuples():
            curve = f"{names[row.curve]} eps={row.eps:g}"
            if curve in last.index:
                assert (row.mse, row.runs, row.t) == (last.loc[curve, "mse"], last.loc[curve, "runs"],
                                                      last.loc[curve, "t"]), (figure, curve)
                compared += 1
    assert compared == 10
