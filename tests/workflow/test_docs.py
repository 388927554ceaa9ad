"""The documentation: the site builds with warnings as errors and every link and image in it
resolves; the generated pages (configuration reference, choices, claims, published builds)
hold every key, choice and claim; the README stays short and its links resolve."""

import ast
import importlib.util
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

from colme import docpages
from colme.claims import load_claims
from colme.config import load_schema
from colme.registry import ENGINES

ROOT = Path(__file__).resolve().parents[2]


class _Links(HTMLParser):
    """Every href/src of a page and every id it defines."""

    def __init__(self):
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        for name in ("href", "src"):
            if attrs.get(name) and tag in ("a", "img", "link", "script", "source"):
                self.links.append(attrs[name])


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(out)],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "WARNING" not in result.stderr, result.stderr[-3000:]
    return out


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(errors="replace"))
    return parser


def test_every_link_and_image_of_the_site_resolves(site):
    # 404.html links from the site's root (it is served for any missing path); skipped.
    pages = sorted(p for p in site.rglob("*.html") if p.name != "404.html")
    assert len(pages) > 20
    parsed = {page: _parse(page) for page in pages}
    broken = []
    for page, links in parsed.items():
        for link in links.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//"):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)}: {link}")
            elif parts.fragment and target.suffix == ".html":
                ids = (parsed.get(target) or _parse(target)).ids
                if parts.fragment not in ids:
                    broken.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    assert not broken, "\n".join(broken[:30])


def test_generated_pages_are_committed_and_current():
    """The configuration reference, choices, claims and build pages are committed under docs/
    (so that links to them work in a checkout) and equal what colme.docpages writes."""
    assert docpages.stale_pages(ROOT) == [], "run `python -m colme.docpages` (or `make docs`)"


def test_a_stale_hand_written_file_is_named_by_its_path_under_docs(tmp_path):
    """Two hand-written files are called README.md: the report tells them apart."""
    from colme.prose import prose_files

    (tmp_path / "docs" / "experiments").mkdir(parents=True)
    for path in ("README.md", "docs/results.md", "docs/experiments/README.md"):
        (tmp_path / path).write_text("x\n")
    names = [docpages._prose_name(tmp_path, path) for path in prose_files(tmp_path, set())]
    assert names == ["README.md", "results.md", "experiments/README.md"]


#: A Markdown link or image: [text](target) or ![alt](target), the target without a title.
MARKDOWN_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def test_every_relative_link_resolves_in_a_checkout():
    """Read on GitHub or in an editor, not only on the site: every relative link of README.md
    and the pages under docs/ names a file of the repository (the generated pages included)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    broken = []
    for page in pages:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)  # code blocks hold no links
        for target in MARKDOWN_LINK.findall(text):
            parts = urlsplit(target)
            if parts.scheme or target.startswith(("#", "//")) or not parts.path:
                continue
            if not (page.parent / unquote(parts.path)).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, "\n".join(broken[:30])


def test_site_shows_the_published_figures(site):
    home = (site / "index.html").read_text()
    for build in ("default", "paper"):
        page = (site / build / "index.html").read_text()
        built = yaml.safe_load((ROOT / "docs" / build / "build.json").read_text())["figures"]
        shown = set(re.findall(r'<img[^>]+src="figures/([A-Za-z0-9_]+)\.png"', page))
        present = {f for f in built if (ROOT / "docs" / build / "figures" / f"{f}.png").exists()}
        assert present and present <= shown, sorted(present - shown)
    assert 'src="default/figures/fig1_r20.png"' in home
    for kind in ("experiments", "suites"):
        for build in (ROOT / "docs" / kind).glob("*/build.json"):
            assert (site / kind / build.parent.name / "index.html").exists()
    scorecard = (site / "scorecard.html").read_text()
    for build in (ROOT / "docs" / "suites").glob("*/build.json"):
        assert f'src="suites/{build.parent.name}/figures/scorecard.png"' in scorecard


def _properties(node, found):
    """(name, schema) of every key declared anywhere in the schema (an ``if`` only tests
    keys declared elsewhere)."""
    if isinstance(node, dict):
        for name, schema in node.get("properties", {}).items():
            found.append((name, schema))
        for key, value in node.items():
            if key != "if":
                _properties(value, found)
    elif isinstance(node, list):
        for value in node:
            _properties(value, found)
    return found


def test_configuration_reference_has_every_key_with_its_description_type_values_and_default():
    schema = load_schema()
    page = docpages.config_reference(schema)
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    properties = _properties(schema, [])
    assert len(properties) > 150
    missing = []
    for name, definition in properties:
        description = definition.get("description", "")
        if not description.strip():
            missing.append(f"{name}: no description in the schema")
            continue
        cells = [
            row for row in rows
            if re.match(rf"\| `([^`]*[.\]])?{re.escape(name)}` \|", row) and docpages._cell(description) in row
        ]
        if not cells:
            missing.append(f"{name}: no row with its description")
            continue
        expected = [docpages.schema_type(definition)]
        expected += [f"`{docpages._value(value)}`" for value in definition.get("enum", ())]
        expected += [docpages._value(definition[key]) for key in ("minimum", "maximum") if key in definition]
        expected += [definition["x-allowed"]] if "x-allowed" in definition else []  # a pattern in words
        # a required key shows "required" (its placeholder default only completes the schema)
        defaults = [f"`{docpages._value(definition['default'])}`", "**required**"] if "default" in definition else [""]
        if not any(all(docpages._cell(text) in row for text in expected)
                   and any(docpages._cell(default) in row for default in defaults) for row in cells):
            missing.append(f"{name}: no row with all of {expected} and one of {defaults}")
    assert not missing, "\n".join(missing[:30])


def test_choices_page_lists_every_engine_and_what_its_figures_record():
    page = docpages.choices_page(ROOT / "config.yaml", sorted((ROOT / "experiments").glob("*.yaml")))
    for engine in ENGINES.values():
        assert f"## `engine: {engine.name}`" in page
        for choice in engine.interpretations:
            assert docpages._cell(choice) in page
    # A line only some figures record (an experiment's graph family) is there, with its figure.
    assert re.search(r"graph: Erdos-Renyi .*`exp_erdos_renyi_d5`", page)


def test_claims_page_has_every_claim_with_its_published_verdicts():
    published = {build: ROOT / "docs" / build for build in ("default", "paper")}
    page = docpages.claims_page(ROOT / "workflow" / "claims.yaml", published)
    verdicts = {build: {row["id"]: row["verdict"] for row in _csv(path / "claims.csv")}
                for build, path in published.items()}
    for claim in load_claims(ROOT / "workflow" / "claims.yaml"):
        row = next(line for line in page.splitlines() if line.startswith(f"| `{claim['id']}` |"))
        cells = [cell.strip() for cell in row.strip("|").split(" | ")]
        assert cells[-2:] == [verdicts["default"][claim["id"]], verdicts["paper"][claim["id"]]], claim["id"]


def _csv(path: Path) -> list[dict]:
    import csv

    with path.open() as handle:
        return list(csv.DictReader(handle))


def test_readme_is_short_and_its_links_resolve():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 150
    assert "make figures" in text and "make test" in text
    for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if not urlsplit(link).scheme:
            assert (ROOT / link).exists(), f"README links {link}, which does not exist"


def _lists_glued_to_a_paragraph(text: str) -> list[int]:
    """Lines that open a list right after a paragraph line: Python-Markdown (the site's
    renderer, unlike GitHub) then prints the items as text of that paragraph."""
    glued, fenced, previous = [], False, ""
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"(\s*)([-*]|\d+\.) ", line):
            opens = re.match(r"(\s*)", line)[1]
            if previous.strip() and not re.match(r"\s*([-*]|\d+\.) ", previous) and not previous.startswith(" ") \
                    and not previous.startswith("|") and len(opens) == 0:
                glued.append(number)
        previous = "" if fenced else line
    return glued


def test_site_pages_open_no_list_inside_a_paragraph():
    pages = sorted((ROOT / "docs").rglob("*.md"))
    glued = {str(p.relative_to(ROOT)): lines for p in pages if (lines := _lists_glued_to_a_paragraph(p.read_text()))}
    assert not glued, glued


DOCUMENTED = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "docs" / "experiments" / "README.md"]


def test_documented_commands_put_targets_before_config_options():
    """Snakemake reads every word after --configfile / --config as a config file or a
    name=value pair: a target written after them fails ("Config entries have to be defined
    as name=value pairs", or the PDF read as YAML)."""
    bad = []
    for path in DOCUMENTED:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            command = line.split("snakemake", 1)[1] if "snakemake " in line else ""
            words = command.split("#", 1)[0].split()
            for index, word in enumerate(words):
                if word in ("--config", "--configfile") and any(
                        w.startswith("results/") for w in words[index + 1:] if not w.startswith("-")):
                    bad.append(f"{path.name}:{number}")
    assert not bad, bad


def test_readme_example_config_validates_and_names_its_targets():
    """The README's example experiment (the first YAML block) merged over config.yaml is a
    valid configuration whose targets are its own figures."""
    from colme.config import update_config
    from colme.expansion import validate_config

    text = (ROOT / "README.md").read_text()
    example = yaml.safe_load(text.split("```yaml\n", 1)[1].split("```", 1)[0])
    config = validate_config(update_config(yaml.safe_load((ROOT / "config.yaml").read_text()), example))
    assert sorted(config["targets"]) == sorted(example["figures"])


def test_configuration_reference_marks_required_keys_and_lists_every_engines_keys():
    """Required keys say so; an engine defined by cases (PriCER's kind) lists each case's
    keys under it; `derived_from` has its row."""
    page = docpages.config_reference(load_schema())
    assert re.search(r"\| `base` \| string \|[^|]*\| \*\*required\*\* \|", page)
    assert re.search(r"\| `axes\[\]\.key` \| string \|[^|]*\| \*\*required\*\* \|", page)
    pricer = page[page.index("### `engine: pricer`"):page.index("### `engine:", page.index("### `engine: pricer`") + 1)]
    for case in ("pricer_trust_figure", "pricer_connectivity_figure", "pricer_feasible_set_figure"):
        assert f"#### {case}" in pricer
    assert "| `p_c` |" in pricer and "| `n_nodes` |" in pricer
    assert "| `derived_from` | string |" in page


def _documented_snakemake_commands() -> list[tuple[str, list[str]]]:
    """Every `snakemake` command of a ```bash block of the README and docs/ (continued
    lines joined, comments dropped), as (where, words after "snakemake")."""
    commands = []
    for path in DOCUMENTED:
        for block in re.findall(r"```bash\n(.*?)```", path.read_text(), re.S):
            joined = re.sub(r"\\\n\s*", " ", block)
            for line in joined.splitlines():
                words = line.split("#", 1)[0].split()
                if words[:1] == ["snakemake"]:
                    commands.append((f"{path.relative_to(ROOT)}: {line.strip()}", words[1:]))
    return commands


#: Options a dry run cannot take here: --unlock and --report act on a build, a SLURM profile
#: needs the cluster (its commands' word order is checked above, the profile by tests/workflow/test_slurm.py).
NOT_DRY_RUN = ("--unlock", "--report", "--profile")


def test_every_documented_snakemake_command_runs_as_written():
    """Each documented `snakemake` command, as written, plans its jobs (a dry run in the
    repository, with config.yaml): an option that no longer exists, a target written where
    Snakemake reads a config file, or a bad --config value fails here."""
    commands = _documented_snakemake_commands()
    assert len(commands) >= 8, commands
    ran = 0
    for where, words in commands:
        if any(option in words for option in NOT_DRY_RUN):
            continue
        result = subprocess.run([sys.executable, "-m", "snakemake", *words, "-n", "--quiet", "rules"],
                                cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"{where}\n{(result.stdout + result.stderr)[-2000:]}"
        ran += 1
    assert ran >= 6


# The API reference (docs/api/*.md): mkdocstrings renders each `::: object` from the
# package's docstrings.  A renamed or removed member is skipped silently, and a page whose
# handler found nothing still builds: these tests read what the built site shows.
API = ROOT / "docs" / "api"


def _api_directives() -> list[tuple[str, str, dict]]:
    """(page, object, options) of every `::: object` of docs/api/*.md."""
    directives = []
    for page in sorted(API.glob("*.md")):
        blocks = re.findall(r"^::: (\S+)\n((?:    .*\n|\n)*)", page.read_text(), re.M)
        for target, block in blocks:
            options = (yaml.safe_load(re.sub(r"^    ", "", block, flags=re.M)) or {}).get("options", {})
            directives.append((page.stem, target, options))
    return directives


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a class or function: its parent is a module
        return False


def _public_definitions(module: str) -> list[str]:
    """The public functions and classes a module defines (not those it imports)."""
    tree = ast.parse(Path(importlib.util.find_spec(module).origin).read_text())
    return [node.name for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_")]


def test_api_reference_is_in_the_nav_and_shows_every_object_it_lists(site):
    nav = _parse(site / "index.html").links
    directives = _api_directives()
    assert {page for page, _, _ in directives} >= {"explore", "config", "closed_forms", "pricer", "rules", "graphs"}
    missing = []
    for page in {page for page, _, _ in directives}:
        assert f"api/{page}.html" in nav, f"api/{page}.md is not in mkdocs.yml's nav"
    for page, target, options in directives:
        ids = _parse(site / "api" / f"{page}.html").ids
        members = options.get("members")
        if members is False:
            expected = []
        elif members:
            expected = [f"{target}.{name}" for name in members]
        elif _is_module(target):
            # every public function and class of a module shown whole (one without a
            # docstring would be left out: it fails here)
            expected = [f"{target}.{name}" for name in _public_definitions(target)]
        else:
            expected = []
        missing += [f"api/{page}: {name}" for name in [target, *expected] if name not in ids]
    assert not missing, "\n".join(missing)


def test_api_reference_renders_signatures_and_docstrings(site):
    """The researcher's entry points are there with their annotated signatures and prose."""
    text = {page: re.sub(r"<[^>]+>", "", (site / "api" / f"{page}.html").read_text())
            for page in ("index", "explore", "closed_forms", "rules")}
    assert "figure_tables" in text["index"]
    assert re.search(r"figure_tables\(config: dict, figure: str, root: str \| Path \| None = None\) -&gt; FigureTables",
                     text["explore"])
    assert "validates the configuration as the workflow does" in text["explore"]
    for name in ("theorem1_coefficient", "corollary1_terms", "oracle_expected_mse", "prop3_oracle_mse",
                 "remark3_rrr_oracle_mse"):
        assert f"{name}(" in text["closed_forms"], name
    assert "Theorem 1" in text["closed_forms"] and "Proposition 3" in text["closed_forms"]
    assert "user_rule(" in text["rules"] and "laplace_sigma_dp(" in text["rules"]


def test_api_reference_examples_run():
    """The Python examples of the API reference's index run as written (from the repository
    root, where config.yaml is)."""
    blocks = re.findall(r"```python\n(.*?)```", (API / "index.md").read_text(), re.S)
    assert len(blocks) >= 2
    for block in blocks:
        result = subprocess.run([sys.executable, "-c", block], cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, f"{block}\n{result.stderr[-3000:]}"
