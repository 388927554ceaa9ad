"""Pages of the documentation site generated from the code's own sources.

The site (``mkdocs.yml``, ``docs/``) writes by hand what needs prose; what would drift if
copied comes from here, checked by ``docs/hooks.py`` at every build:

* ``config_reference``: every key of the configuration schema (``colme.config.load_schema``:
  the global keys composed with each engine's definitions) with its description, type,
  allowed values and default;
* ``choices_page``: the choices made where each paper is silent, as the engines record them
  in every figure's provenance (``Engine.figure_interpretations``), for the shipped figures
  and the experiments;
* ``claims_page``: the papers' claims (``workflow/claims.yaml``, expanded by
  ``colme.claims.load_claims``) with their verdicts in the published claims tables;
* ``build_page``: one page per published build (``docs/default``, ``docs/paper``,
  ``docs/experiments/*``).

They are committed under ``docs/`` (so that every link to them works in a checkout too)
and written by ``python -m colme.docpages`` (``make docs`` runs it first); the site's hook
refuses to build from a stale copy, and a test compares them with what this module writes.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pandas as pd

from .claims import EVIDENCE, HISTORY, HOLM, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED, evidence_summary, load_claims
from .config import ConfigError, load_config, load_schema, resolve_figure, schema_cases
from .derived.scorecard import frontier, frontier_by_privacy
from .expansion import validate_config
from .prose import prose_files, stale_prose
from .registry import ENGINES, stage_params

#: The kinds of a diagnosis's evidence, as the claims page explains them.
EVIDENCE_KINDS = "; ".join(f"{kind}: {meaning}" for kind, meaning in EVIDENCE.items())

# --- configuration reference ----------------------------------------------------------------


def _cell(text) -> str:
    """One Markdown table cell or list item: one line, pipes escaped, and ``<`` outside code
    spans escaped (``results/figures/<name>.pdf`` is not an HTML tag)."""
    parts = " ".join(str(text).split()).replace("|", "\\|").split("`")
    return "`".join(part if i % 2 else part.replace("<", "&lt;") for i, part in enumerate(parts))


def _value(value) -> str:
    """A schema value as it is written in config.yaml (YAML flow style)."""
    if isinstance(value, float) and math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(value) if isinstance(value, str) and not value else str(value)


def _ref_name(schema: dict) -> str | None:
    ref = schema.get("$ref", "")
    return ref.rsplit("/", 1)[-1] if ref.startswith("#/$defs/") else None


def def_anchor(name: str) -> str:
    """The anchor of a shared definition's section on the reference page."""
    return "def-" + name.replace("_", "-")


def schema_type(schema: dict) -> str:
    """What a key holds: JSON types, ``array of ...``, a link to a shared definition."""
    name = _ref_name(schema)
    if name:
        return f"[{name}](#{def_anchor(name)})"
    if "const" in schema:
        return "constant"
    if "oneOf" in schema:
        return " or ".join(schema_type(option) for option in schema["oneOf"])
    types = schema.get("type", [])
    parts = []
    for kind in types if isinstance(types, list) else [types]:
        if kind == "array":
            parts.append(f"array of {schema_type(schema.get('items', {})) or 'values'}")
        else:
            parts.append(kind)
    return " or ".join(parts)


#: JSON-schema constraints and how the reference states them.
_CONSTRAINTS = (
    ("minimum", ">= {}"), ("exclusiveMinimum", "> {}"), ("maximum", "<= {}"), ("exclusiveMaximum", "< {}"),
    ("minItems", "at least {} items"), ("maxItems", "at most {} items"),
    ("minLength", "at least {} characters"), ("pattern", "matches `{}`"),
)
_FLAGS = (("infinite", "`.inf` allowed"), ("uniqueItems", "distinct items"))


def allowed_values(schema: dict) -> str:
    """The values a key allows beyond its type: enum, constant, bounds, lengths, pattern."""
    if "oneOf" in schema:
        return "; ".join(filter(None, (allowed_values(option) for option in schema["oneOf"])))
    parts = []
    if "enum" in schema:
        parts.append("one of " + ", ".join(f"`{_value(v)}`" for v in schema["enum"]))
    if "const" in schema:
        parts.append(f"`{_value(schema['const'])}`")
    parts += [text.format(_value(schema[key])) for key, text in _CONSTRAINTS
              if key in schema and not (key == "pattern" and "x-allowed" in schema)]
    if "x-allowed" in schema:  # a pattern in words (the error message's too)
        parts.append(schema["x-allowed"])
    parts += [text for key, text in _FLAGS if schema.get(key)]
    items = schema.get("items")
    if isinstance(items, dict) and not _ref_name(items) and "properties" not in items:
        inner = allowed_values(items)
        if inner:
            parts.append(f"each: {inner}")
    return ", ".join(parts)


def schema_rows(properties: dict, required=(), prefix: str = "") -> list[dict]:
    """One row per key of ``properties``, nested objects, arrays of objects and mappings
    of named entries expanded (``sensitivity.runs``, ``axes[].key``,
    ``decision_rules.<name>.file``); shared definitions are linked, not expanded."""
    rows = []
    for name, schema in properties.items():
        key = prefix + name
        if name in required:  # a placeholder default, if any, only completes the schema
            default = "**required**"
        elif "default" in schema:
            default = f"`{_value(schema['default'])}`"
        else:
            default = "none"
        rows.append({
            "key": key,
            "type": schema_type(schema),
            "allowed": allowed_values(schema),
            "default": default,
            "description": schema.get("description", ""),
        })
        for part in _object_parts(schema):
            rows += schema_rows(part["properties"], part.get("required", ()), key + ".")
        items = schema.get("items")
        if isinstance(items, dict) and "properties" in items:
            rows += schema_rows(items["properties"], items.get("required", ()), key + "[].")
        named = schema.get("additionalProperties")  # a mapping of entries by name (decision_rules)
        if isinstance(named, dict) and "properties" in named:
            rows += schema_rows(named["properties"], named.get("required", ()), key + ".<name>.")
    return rows


def _object_parts(schema: dict) -> list[dict]:
    """The inline objects whose keys a key's rows expand: the schema itself, or its
    ``oneOf`` alternatives (a count or ``{default: n, paper: m}``)."""
    if _ref_name(schema):
        return []
    return [part for part in [schema, *schema.get("oneOf", ())] if "properties" in part]


def _table(rows: list[dict]) -> list[str]:
    lines = ["| key | type | allowed values | default | description |", "|---|---|---|---|---|"]
    lines += [
        f"| `{row['key']}` | {_cell(row['type'])} | {_cell(row['allowed'])} | {_cell(row['default'])} "
        f"| {_cell(row['description'])} |"
        for row in rows
    ]
    return lines


def config_reference(schema: dict) -> str:
    """The configuration reference page: global keys, each engine's figure entries and the
    shared definitions, every key with its description, type, allowed values and default."""
    defs = schema["$defs"]
    figure_defs = {engine.figure_schema: engine for engine in ENGINES.values() if engine.figure_schema}
    figure_defs_cases: set[str] = set()  # the definitions of a figure's cases, listed under their engine
    lines = [
        "# Configuration reference",
        "",
        "Generated from the schema at every build of this site (`colme/schema.yaml`, the global keys,",
        "composed with each engine's `schema.yaml` by `colme.config.load_schema`), so it cannot drift",
        "from what the workflow validates. " + _cell(schema.get("description", "")),
        "",
        "A config file (`config.yaml`, or yours passed with `--configfile`, merged over it key by key)",
        "is validated and completed with these defaults before any job runs; a bad key or value stops",
        "the build naming the key and what it allows. \"none\" in the default column: the key is",
        "optional, or its engine derives it from other keys.",
        "",
        "## Global keys",
        "",
        *_table(schema_rows(schema["properties"], schema.get("required", ()))),
        "",
        "## Figure entries",
        "",
        _cell(defs["figure"].get("description", "")),
        "",
    ]
    lines += [
        "Any entry may instead be `derived_from: <figure>` plus keys: that figure's entry with those",
        "keys overridden (an ablation or a variant; the result is validated like any entry).  Every",
        "entry needs `engine:`: without it the keys are read as another engine's, and the error",
        "names the keys that engine does not know.",
        "",
        "| key | type | allowed values | default | description |",
        "|---|---|---|---|---|",
        ("| `derived_from` | string | a configured figure's name | none | The figure whose entry this one "
         "starts from; its other keys override that entry's. |"),
        "",
    ]
    for name, engine in figure_defs.items():
        definition = defs[name]
        lines += [f"### `engine: {engine.name}` {{#{def_anchor(name)}}}", "",
                  _cell(definition.get("description", "")), ""]
        alternatives = schema_cases(definition)
        if definition.get("properties") or not alternatives:
            lines += [*_table(schema_rows(definition.get("properties", {}), definition.get("required", ()))), ""]
        for alternative in alternatives:  # a figure defined by cases (PriCER's kind)
            part = defs[alternative]
            lines += [f"#### {alternative} {{#{def_anchor(alternative)}}}", "", _cell(part.get("description", "")), "",
                      *_table(schema_rows(part.get("properties", {}), part.get("required", ()))), ""]
        figure_defs_cases.update(alternatives)
    lines += ["## Shared definitions", ""]
    for name, definition in defs.items():
        if name in figure_defs or name in figure_defs_cases or name == "figure":
            continue
        lines += [f"### {name} {{#{def_anchor(name)}}}", "", _cell(definition.get("description", "")), ""]
        parts = _object_parts(definition)
        if parts != [definition]:
            lines += [f"Type: {schema_type(definition)}; allowed: {allowed_values(definition) or 'any'}.", ""]
        for part in parts:
            lines += _table(schema_rows(part["properties"], part.get("required", ())))
        lines.append("")
    return "\n".join(lines)


# --- choices where the papers are silent ----------------------------------------------------


def _figures_of(config_path: Path, experiment_files: list[Path]) -> dict[str, dict]:
    """The resolved settings of every figure of ``config_path`` and of each experiment file
    merged over it (a name both define keeps config.yaml's figure)."""
    figures: dict[str, dict] = {}
    for experiment in [None, *experiment_files]:
        try:
            validated = validate_config(load_config(config_path, experiment))
        except ConfigError as error:
            raise ConfigError(f"{experiment or config_path}: {error}") from error
        for figure in validated["figures"]:
            figures.setdefault(figure, resolve_figure(validated, figure))
    return figures


def choices_page(config_path: Path, experiment_files: list[Path]) -> str:
    """The choices made where each paper is silent, engine by engine: the lines every figure
    of the engine records, then those only some figures record (with the figures)."""
    figures = _figures_of(config_path, experiment_files)
    lines = [
        "# Choices where the papers are silent",
        "",
        "Generated at every build of this site from the code that records them: each engine's",
        "`interpretations` and `figure_interpretations(settings)` (`colme/engines.py`), evaluated on",
        "every figure of `config.yaml` and of `experiments/*.yaml`. The same lines go into each",
        "figure's provenance (PDF metadata, `results/figures/<figure>.json`, the report's caption).",
        "Options behind a choice are keys of the figure's entry (see the",
        "[configuration reference](configuration.md)); `snakemake --cores all results/sensitivity.md`",
        "flips each to every other value it allows and re-checks the figure's claims.",
        "",
    ]
    for engine in ENGINES.values():
        mine = {name: settings for name, settings in figures.items() if settings["engine"] == engine.name}
        recorded = {name: engine.figure_interpretations(settings) for name, settings in mine.items()}
        lines += [f"## `engine: {engine.name}`", "", _cell((type(engine).__doc__ or "").strip()), ""]
        if engine.interpretations:
            lines += ["Every figure of this engine records:", ""]
            lines += [f"- {_cell(choice)}" for choice in engine.interpretations]
            lines.append("")
        extra: dict[str, list[str]] = {}
        for name, choices in recorded.items():
            for choice in choices:
                if choice not in engine.interpretations:
                    extra.setdefault(choice, []).append(name)
        if extra:
            lines += ["Recorded by some figures only (where their settings call for it):", ""]
            for choice, names in extra.items():
                more = f" and {len(names) - 6} more" if len(names) > 6 else ""
                shown = ", ".join(f"`{n}`" for n in names[:6]) + more
                lines.append(f"- {_cell(choice)} ({shown})")
            lines.append("")
        options = sorted({option for settings in mine.values() for option in engine.interpretation_options(settings)})
        if options:
            anchor = def_anchor(engine.figure_schema)
            lines += [
                "Options behind these choices (flipped by the sensitivity report): "
                + ", ".join(f"[`{option}`](configuration.md#{anchor})" for option in options),
                "",
            ]
        if not engine.interpretations and not extra:
            lines += ["No choice of its own: it shows other figures' tables, which record theirs.", ""]
    return "\n".join(lines)


# --- figures and claims ---------------------------------------------------------------------


def _verdict(rows: pd.DataFrame | None, claim_id: str, column: str = "verdict") -> str:
    if rows is None or claim_id not in rows.index:
        return "not built"
    value = rows.at[claim_id, column]
    return "" if pd.isna(value) else str(value)


VERDICTS = (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE)


def claims_page(claims_path: Path, published: dict[str, Path]) -> str:
    """Every claim of ``claims_path`` (expanded) by figure, with its criterion and its
    verdict in each published build's ``claims.csv`` (``published``: build name -> folder,
    relative to the page), the figure's image from the first build that has it, and the
    diagnoses of the claims not reproduced."""
    claims = load_claims(claims_path)
    tables = {}
    for build, folder in published.items():
        path = Path(folder) / "claims.csv"
        tables[build] = pd.read_csv(path).set_index("id") if path.exists() else None
    builds = list(published)
    lines = [
        "# Figures and claims",
        "",
        "Generated at every build of this site from `workflow/claims.yaml` (the claims and their",
        "criteria) and the published claims tables",
        "(" + ", ".join(f"[{b}]({Path(f).name}/claims.md)" for b, f in published.items()) + ").",
        "Verdicts use paired standard errors (the curves of a panel share their runs' draws); the",
        "published `claims.md` of each build gives the measured numbers and the verdicts with",
        "independent errors too. A diagnosis states a cause for a claim not reproduced and checks it",
        "on another table; it never changes the claim's verdict. The family-wise columns apply",
        "Holm's correction over the claims of a build (`colme.claims.family_wise`).",
        "",
        f"What was fixed when. {HISTORY}",
        "",
        "| build | claims | " + " | ".join(VERDICTS) + " | " + " | ".join(f"{v} (Holm)" for v in VERDICTS) + " |",
        "|---|---|" + "---|" * 2 * len(VERDICTS),
    ]
    for build in builds:
        table = tables[build]
        if table is None:
            continue
        counts, holm = table["verdict"].value_counts(), table[HOLM].value_counts()
        lines.append(f"| {build} | {len(table)} | " + " | ".join(str(counts.get(v, 0)) for v in VERDICTS)
                     + " | " + " | ".join(str(holm.get(v, 0)) for v in VERDICTS) + " |")
    lines.append("")
    for build in builds:
        if tables[build] is not None:
            lines += [f"{build}: {evidence_summary(tables[build].reset_index())} ({EVIDENCE_KINDS}).", ""]
    by_figure: dict[str, list[dict]] = {}
    for claim in claims:
        by_figure.setdefault(claim["figure"], []).append(claim)
    for figure, entries in by_figure.items():
        lines += [f"## {figure}", ""]
        for build, folder in published.items():
            image = Path(folder) / "figures" / f"{figure}.png"
            if image.exists():
                lines += [f"![{figure} ({build})]({Path(folder).name}/figures/{figure}.png)", ""]
                break
        lines += [
            "| id | claim | " + " | ".join(builds) + " |",
            "|---|---|" + "---|" * len(builds),
        ]
        lines += [
            f"| `{c['id']}` | {_cell(c['claim'])} | "
            + " | ".join(_cell(_verdict(tables[b], c["id"])) for b in builds) + " |"
            for c in entries
        ]
        lines.append("")
        criteria = [(c["id"], _verdict(tables[builds[-1]], c["id"], "criterion")) for c in entries]
        lines += ["Criteria:", ""] + [f"- `{i}`: {_cell(text)}" for i, text in criteria if text] + [""]
        diagnosed = [c for c in entries if "diagnosis" in c]
        if diagnosed:
            lines += ["Diagnoses (cause and its check's verdict per build):", ""]
            for c in diagnosed:
                verdicts = ", ".join(f"{b}: {_verdict(tables[b], c['id'], 'diagnosis verdict') or 'not run'}"
                                     for b in builds)
                lines.append(f"- `{c['id']}`: {_cell(c['diagnosis'].get('cause', ''))} ({verdicts})")
            lines.append("")
    return "\n".join(lines)


# --- published builds -----------------------------------------------------------------------


def build_page(folder: Path, title: str) -> str:
    """The page of a published build (``colme.publish``'s folder: build.json, figures/,
    tables/, provenance/): how it was made, then every figure with the files behind it.
    Links are relative to the folder, where the page goes (``<folder>/index.md``)."""
    folder = Path(folder)
    build = json.loads((folder / "build.json").read_text())
    facts = [
        ("preset", build.get("preset")),
        ("seed", build.get("seed")),
        ("commit", f"`{build['commit'][:10]}`" if build.get("commit") else None),
        ("wall time", f"{build['wall_seconds'] / 60:.1f} min on {build.get('cores')} cores"
         if build.get("wall_seconds") else None),
        ("compute", f"{build['compute_seconds']:.0f} core-seconds" if build.get("compute_seconds") else None),
        ("machine", ", ".join(str(v) for v in build.get("machine", {}).values()) or None),
        ("claims", ", ".join(f"{n} {v}" for v, n in sorted(build.get("verdicts", {}).items()))
         + f" (of {build['claims']})" if build.get("claims") else None),
    ]
    lines = [f"# {title}", "", "Made by `python -m colme.publish` (`build.json`):", ""]
    lines += [f"- {name}: {value}" for name, value in facts if value not in (None, "")]
    if (folder / "claims.md").exists():
        lines.append("- [claims checked](claims.md) ([csv](claims.csv))")
    lines += ["", "Each figure with its table, supplement and provenance (settings, seed, runs, choices,",
              "versions).", ""]
    for figure in build.get("figures", []):
        image = folder / "figures" / f"{figure}.png"
        if not image.exists():
            continue
        files = [(name, f"tables/{figure}{suffix}") for name, suffix in (
            ("table", ".csv"), ("supplement", "_supplement.csv"), ("covariance", "_covariance.csv.gz"),
            ("diagnostics", "_diagnostics.csv.gz"))]
        files.append(("provenance", f"provenance/{figure}.json"))
        links = ", ".join(f"[{name}]({path})" for name, path in files if (folder / path).exists())
        lines += [f"## {figure}", "", f"![{figure}](figures/{figure}.png)", "", links, ""]
        diagnostics = folder / "figures" / f"{figure}_diagnostics.png"
        if diagnostics.exists():
            lines += [f"![{figure} diagnostics](figures/{figure}_diagnostics.png)", ""]
    return "\n".join(lines)


# --- the scorecard ------------------------------------------------------------------------------

SCORECARD_INTRO = """# Scorecard: every algorithm on every world

A *suite* (`suites/*.yaml`) names worlds (each a simulated figure whose agents, graph,
population, horizon and runs it takes), privacy levels and algorithms (an engine and the
settings that make it that algorithm: a built-in rule, C-ColME or B-ColME of Galante et al.,
Private-ColME's tests, or a rule of one's own).  One target builds the card:

```bash
snakemake --cores all --configfile suites/default.yaml      # results/suites/default/
snakemake --profile profiles/slurm --configfile suites/default.yaml --config preset=paper
```

Each algorithm meets each world of its kind in a *cell*, an ordinary simulated figure drawing
the world's random streams, so every comparison is paired run by run; adding an algorithm
(one line) builds its cells and the card, nothing else (`colme.derived.scorecard`).

The card reads every cell at its world's horizon T:

- `ratio` [`ratio_lo`, `ratio_hi`]: MSE / Local at T, with its 2-se interval (paired with
  Local where Local is simulated: a world from a data file);
- `below_local_from`: the first recorded t after which the mean curve stays below Local
  (empty: above Local at T);
- `log_ratio_area`: the mean of log10(MSE / Local) over ln t, below 0 where collaboration
  helps on (log-)average;
- `beats_local`, `beats_baseline`: one-sided tests against Local and against the best
  baseline (the baseline algorithm of lowest MSE at T in that world and privacy level,
  paired run by run), Holm over every test of the card at family-wise 0.05;
- `rank`, `ranked_among`: the rank by MSE at T, deployable algorithms apart from those that
  know something a deployed agent would not (`knows`: what the engine says of its settings,
  and what the suite declares for the algorithm);
- `cpu_seconds_per_run`: the cell figure's kernel CPU seconds per run, all its eps together.

In the heatmap, * marks a cell that beats Local and + one that beats the best baseline; the
columns after the black line are the privileged algorithms (the oracle knows the classes;
C-ColME as its authors' code runs it stops its restarts when the true classes show that no
wrong link is left).  Everything below is generated from the published files.
"""


def scorecard_page(root: Path) -> str:
    """The scorecard page: what a card is, then each published suite (``docs/suites/<name>``):
    its build, heatmap, the frontier in words and the card, all read from the published files."""
    lines = [SCORECARD_INTRO]
    for folder in sorted((Path(root) / "docs" / "suites").glob("*/build.json")):
        folder = folder.parent
        build = json.loads((folder / "build.json").read_text())
        for figure in build["figures"]:
            card = pd.read_csv(folder / "tables" / f"{figure}.csv", keep_default_na=False, na_values=[""])
            rows = card.groupby(["world", "privacy"], sort=False)
            paying = sum(bool(((g["ranked_among"] == "deployable") & g["beats_local"]).any()) for _, g in rows)
            lines += [
                f"## Suite `{folder.name}`: {figure} ({build['preset']} preset)", "",
                (f"Built by `suites/{folder.name}.yaml` in {build['wall_seconds'] / 60:.1f} min on "
                 f"{build['cores']} cores ({', '.join(str(v) for v in build['machine'].values())}), "
                 f"{build['compute_seconds']:.0f} core-seconds; seed {build['seed']}, commit "
                 f"`{build['commit'][:10]}`; [build page](suites/{folder.name}/index.md), "
                 f"[card (csv)](suites/{folder.name}/tables/{figure}.csv)."),
                "", f"![{figure}](suites/{folder.name}/figures/{figure}.png)", "",
                "### Where private collaboration pays", "",
                (f"A deployable algorithm beats Local significantly (Holm) in {paying} of the {rows.ngroups} "
                 "world and privacy rows. By privacy level, where collaboration pays (the best deployable "
                 "algorithm that beats Local) and where it does not:"), "",
                *[f"- {_cell(line)}" for line in frontier_by_privacy(card)], "",
                "Row by row:", "",
                *[f"- {_cell(line)}" for line in frontier(card)], "",
                "### The card", "",
                ("| world | privacy | algorithm | MSE / Local [2 se] | below Local from t | area | beats Local "
                 "| beats best baseline | rank | knows | CPU s / run |"),
                "|---|---|---|---|---|---|---|---|---|---|---|",
            ]
            for row in card.itertuples():
                below = "" if pd.isna(row.below_local_from) else f"{row.below_local_from:g}"
                baseline = "" if not row.best_baseline or pd.isna(row.best_baseline) else (
                    f"{'yes' if row.beats_baseline else 'no'} ({row.best_baseline})")
                lines.append(
                    f"| {row.world} | {row.privacy} | {row.curve} | {row.ratio:.3g} [{row.ratio_lo:.3g}, "
                    f"{row.ratio_hi:.3g}] | {below} | {row.log_ratio_area:+.2f} | "
                    f"{'yes' if row.beats_local else 'no'} | {baseline} | {row.rank} ({row.ranked_among}) | "
                    f"{_cell(row.knows) if isinstance(row.knows, str) else ''} | {row.cpu_seconds_per_run:.3g} |")
            lines.append("")
    return "\n".join(lines)


# --- the generated pages together -----------------------------------------------------------

#: The published builds with their own page, and their titles (experiments: one per folder).
BUILD_TITLES = {"default": "Default preset build", "paper": "Paper preset build"}


#: The generated pages at the top of docs/ (beside the hand-written ones: ``colme.prose``).
TOP_PAGES = ("configuration.md", "choices.md", "claims.md", "scorecard.md", "privacy_audit.md")


def generated_pages(root: Path) -> dict[str, str]:
    """Every generated page by its path under ``<root>/docs`` (``root``: the repository)."""
    root = Path(root)
    docs = root / "docs"
    pages = {
        "configuration.md": config_reference(load_schema()),
        "choices.md": choices_page(root / "config.yaml", sorted((root / "experiments").glob("*.yaml"))),
        "claims.md": claims_page(root / "workflow" / "claims.yaml", {build: docs / build for build in BUILD_TITLES}),
        "scorecard.md": scorecard_page(root),
        "privacy_audit.md": privacy_audit_page(_figures_of(root / "config.yaml",
                                                           sorted((root / "experiments").glob("*.yaml")))),
    }
    builds = list(BUILD_TITLES)
    builds += [f"{kind}/{path.parent.name}" for kind in ("experiments", "suites")
               for path in sorted((docs / kind).glob("*/build.json"))]
    for build in builds:
        pages[f"{build}/index.md"] = build_page(docs / build, build_title(build))
    return pages


def privacy_audit_page(figures: dict[str, dict]) -> str:
    """The privacy audit (``colme.audit.audit_page``: computed, about 6 s), then what one
    sample enjoys in each private figure of ``figures`` (``Engine.sample_privacy``)."""
    from .audit import audit_page  # lazy: it compiles a Numba draw and imports dp-accounting (a dev extra)

    lines = [
        "## What one sample enjoys, figure by figure",
        "",
        "Each private figure of `config.yaml` and `experiments/*.yaml`, per curve (and privacy level",
        "or class): the eps and delta of one sample over the whole horizon, after composition over",
        "every release it enters, as its provenance records them (`sample_privacy`). Private-ColME's",
        "are per querying agent: each agent's queries get their own p-sums and noise, so releases",
        "to different agents compose.  A data file's range and, with `sigma: agent`, each agent's",
        "sigma told to the rules are treated as public, outside these eps.  Curves at eps = inf are",
        "left out.",
        "",
        "| figure | curves | eps | delta | releases of one sample |",
        "|---|---|---|---|---|",
    ]
    for name, settings in sorted(figures.items()):
        engine = ENGINES[settings["engine"]]
        if not engine.simulated:
            continue
        grouped: dict[tuple, list[str]] = {}  # the curves that give a sample the same privacy
        for row in engine.sample_privacy(engine.spec(stage_params(settings, "table"))):
            if math.isinf(row["eps"]):
                continue
            level = f" (class {row['class']})" if "class" in row else (
                f" ({100 * row['share']:g} % of agents)" if row.get("share", 1.0) < 1.0 else "")
            grouped.setdefault((row["eps"], row["delta"], row["releases"]), []).append(row["curve"] + level)
        for (eps, delta, releases), curves in grouped.items():
            lines.append(f"| `{name}` | {_cell(', '.join(curves))} | {eps:.4g} | {delta:.3g} | {_cell(releases)} |")
    return audit_page() + "\n" + "\n".join(lines) + "\n"


def build_title(name: str) -> str:
    """The title of the page of the published build in the folder ``name`` (a preset's, an
    experiment's or a suite's, ``suites/<name>``)."""
    if name.startswith("suites/"):
        return f"Suite {name.split('/', 1)[1]}"
    return BUILD_TITLES.get(name, f"Experiment {name.rsplit('/', 1)[-1]}")


def stale_pages(root: Path, pages: dict[str, str] | None = None) -> list[str]:
    """The generated pages (``pages``, else ``generated_pages(root)``) whose copy under
    ``<root>/docs`` is missing or differs (paths under docs/), and the hand-written files
    whose published numbers (``colme.prose`` markers) differ from the published files'
    (README.md, or a name under docs/)."""
    pages = generated_pages(root) if pages is None else pages
    return _stale_generated(root, pages) + [_prose_name(root, path)
                                            for path in stale_prose(root, prose_files(root, set(pages)))]


def _prose_name(root: Path, path: Path) -> str:
    """A hand-written file's name as the two functions report it: README.md for the
    repository's, else its path under docs/ (docs/experiments/README.md is experiments/README.md)."""
    docs = Path(root) / "docs"
    return path.relative_to(docs).as_posix() if path.is_relative_to(docs) else path.name


def _stale_generated(root: Path, pages: dict[str, str]) -> list[str]:
    docs = Path(root) / "docs"
    return [name for name, content in pages.items()
            if not (docs / name).is_file() or (docs / name).read_text() != content]


def write_pages(root: Path) -> list[str]:
    """Write the stale generated pages under ``<root>/docs``, and refresh the published
    numbers of the hand-written files (``colme.prose.prose_files``); their names."""
    docs = Path(root) / "docs"
    pages = generated_pages(root)
    stale = _stale_generated(root, pages)
    for name in stale:
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(pages[name])
    for path, text in stale_prose(root, prose_files(root, set(pages))).items():
        path.write_text(text)
        stale.append(_prose_name(root, path))
    return stale


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write the site's generated pages under <root>/docs.")
    parser.add_argument("root", nargs="?", type=Path, default=Path("."), help="the repository (default: .)")
    written = write_pages(parser.parse_args(argv).root)
    print(f"written: {', '.join(written)}" if written else "generated pages up to date")


if __name__ == "__main__":
    main()
