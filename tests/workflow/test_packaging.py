"""Packaging: pyproject.toml, environment.yml and requirements.lock declare and pin the same
software; the lock is the complete tested set; CI keeps pytest's summary line; the SLURM
profile and README use options the plugin has; licence and citation metadata are valid."""

import dataclasses
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
ENVIRONMENT = yaml.safe_load((ROOT / "environment.yml").read_text())
LOCK_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([A-Za-z0-9.+!_-]+)$")
CONDA_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([A-Za-z0-9.+!_-]+)$")


def declared() -> list[Requirement]:
    """pyproject.toml's dependencies and every optional extra."""
    project = PYPROJECT["project"]
    strings = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        strings += extra
    return [Requirement(s) for s in strings]


def lock() -> dict[str, str]:
    """requirements.lock as {canonical name: version}; only `name==version` lines allowed."""
    pins = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = LOCK_LINE.match(line)
        assert match, f"requirements.lock: not an exact `name==version` pin: {line!r}"
        name = canonicalize_name(match[1])
        assert name not in pins, f"requirements.lock pins {name} twice"
        pins[name] = match[2]
    return pins


def conda_dependencies() -> dict[str, str]:
    """environment.yml's packages other than python, as {canonical name: spec string}."""
    deps = {}
    for entry in ENVIRONMENT["dependencies"]:
        assert isinstance(entry, str), f"environment.yml: unexpected entry {entry!r}"
        name = re.split(r"[\s=<>!~]", entry, maxsplit=1)[0]
        if name != "python":
            deps[canonicalize_name(name)] = entry
    return deps


def test_environment_declares_the_same_dependencies_as_pyproject():
    in_pyproject = {canonicalize_name(r.name) for r in declared()}
    in_environment = set(conda_dependencies())
    assert in_environment == in_pyproject, (
        f"only in pyproject.toml: {sorted(in_pyproject - in_environment)}; "
        f"only in environment.yml: {sorted(in_environment - in_pyproject)}"
    )


def test_environment_python_satisfies_requires_python():
    pythons = [e for e in ENVIRONMENT["dependencies"] if re.match(r"^python\s*[=<>]", e)]
    assert len(pythons) == 1
    version = re.sub(r"^python\s*=+\s*", "", pythons[0])
    from packaging.specifiers import SpecifierSet

    assert Version(version) in SpecifierSet(PYPROJECT["project"]["requires-python"])


def test_lock_pins_every_declared_dependency_inside_its_range():
    pins = lock()
    for requirement in declared():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"requirements.lock does not pin {requirement.name}"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"requirements.lock pins {name}=={pins[name]} outside pyproject's {requirement}"
        )


def test_environment_pins_equal_the_lock():
    pins = lock()
    for name, entry in conda_dependencies().items():
        match = CONDA_PIN.match(entry)
        assert match, f"environment.yml: {entry!r} is not an exact `name==version` pin"
        assert name in pins, f"environment.yml pins {name}, requirements.lock does not"
        assert match[2] == pins[name], (
            f"environment.yml pins {name}=={match[2]}, requirements.lock {pins[name]}"
        )


def _follows(marker: Marker | None, extras: set[str]) -> bool:
    """Whether a requirement applies here, for a package installed with ``extras``."""
    if marker is None:
        return True
    return any(marker.evaluate({"extra": extra}) for extra in extras | {""})


def test_lock_is_the_complete_closure_of_the_declared_dependencies():
    """Every requirement reachable from pyproject (with extras) is pinned at a version it
    allows, and nothing else is pinned.  Reads the installed packages' metadata, so it
    runs where the lock is installed (make, CI)."""
    pins = lock()
    differing = {
        name: version for name, version in pins.items()
        if _installed_version(name) != Version(version)
    }
    if differing:
        pytest.skip(f"this environment is not requirements.lock: {sorted(differing)[:5]}")
    reached: set[str] = set()
    queue = [(r, set(r.extras)) for r in declared()]
    seen: set[tuple[str, frozenset]] = set()
    while queue:
        requirement, extras = queue.pop()
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement} is required but not pinned in requirements.lock"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"requirements.lock pins {name}=={pins[name]}, but {requirement} is required"
        )
        reached.add(name)
        if (name, frozenset(extras)) in seen:
            continue
        seen.add((name, frozenset(extras)))
        for text in metadata.distribution(name).requires or []:
            sub = Requirement(text)
            sub_name = canonicalize_name(sub.name)
            if _follows(sub.marker, extras):
                queue.append((sub, set(sub.extras)))
            elif sub_name in pins and "extra" not in str(sub.marker):
                # Pinned for another platform or Python (e.g. greenlet for SQLAlchemy).
                queue.append((sub, set(sub.extras)))
    assert set(pins) == reached, f"pinned but not required: {sorted(set(pins) - reached)}"


def _installed_version(name: str) -> Version | None:
    try:
        return Version(metadata.version(name))
    except metadata.PackageNotFoundError:
        return None


def test_ci_runs_pytest_with_exactly_one_q_and_ra():
    """-q twice (-qq) hides pytest's final `N passed` line, which CI's output must end with."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make not installed")
    ci = (ROOT / ".ci" / "run").read_text()
    calls = [line for line in ci.splitlines() if re.match(r"^\s*make\s+test\b", line)]
    assert len(calls) == 1, calls
    args = shlex.split(calls[0])[1:]
    dry_run = subprocess.run([make, "-n", *args], cwd=ROOT, capture_output=True, text=True,
                             check=True)
    pytest_lines = [line for line in dry_run.stdout.splitlines() if "-m pytest" in line]
    assert len(pytest_lines) == 1, dry_run.stdout
    words = shlex.split(pytest_lines[0])
    assert words.count("-q") == 1 and not any(re.fullmatch(r"-q{2,}", w) for w in words), words
    assert "-ra" in words, words
    addopts = PYPROJECT["tool"]["pytest"]["ini_options"].get("addopts", "")
    assert "-q" not in shlex.split(addopts if isinstance(addopts, str) else " ".join(addopts))


def test_make_installs_the_lock_then_colme_without_dependencies():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"pip install .*-r requirements\.lock", makefile)
    assert re.search(r"pip install .*--no-deps -e \.", makefile)
    assert re.search(r"^\$\(BIN\)/\.installed:.*requirements\.lock", makefile, re.M)


def _slurm_settings() -> set[str]:
    plugin = pytest.importorskip("snakemake_executor_plugin_slurm")
    return {"--slurm-" + f.name.replace("_", "-")
            for f in dataclasses.fields(plugin.ExecutorSettings)}


def test_slurm_profile_and_docs_use_options_the_plugin_has():
    options = _slurm_settings()
    profile = yaml.safe_load((ROOT / "profiles" / "slurm" / "config.yaml").read_text())
    used = {"--" + key for key in profile if key.startswith("slurm-")}
    for page in (ROOT / "README.md", ROOT / "docs" / "cluster.md"):
        used |= set(re.findall(r"--slurm-[a-z-]*[a-z]", page.read_text()))
    used |= set(re.findall(r"--slurm-[a-z-]*[a-z]", (ROOT / "tests" / "workflow" / "test_slurm.py").read_text()))
    assert {"--slurm-logdir", "--slurm-efficiency-report", "--slurm-status-command"} <= used
    assert used <= options, f"not options of the installed plugin: {sorted(used - options)}"
    floor = next(r for r in declared() if r.name == "snakemake-executor-plugin-slurm")
    # --slurm-status-command (README, CI) first appeared in 2.1.0.
    assert not floor.specifier.contains("2.0.3") and floor.specifier.contains("2.1.0")


def test_license_is_mit_for_the_colme_workflow_authors():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License")
    assert re.search(r"Copyright \(c\) \d{4} the colme workflow authors", text)
    assert PYPROJECT["project"]["license"] == "MIT"


def test_citation_cff():
    """CFF 1.2.0's required keys and the shape of every reference (the full schema is
    checked by `cffconvert --validate`, which is not a dependency)."""
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    assert cff["message"] and cff["title"] and cff["type"] == "software"
    assert cff["authors"] == [{"name": "the colme workflow authors"}]
    assert cff["version"] == PYPROJECT["project"]["version"]
    assert cff["license"] == PYPROJECT["project"]["license"]
    titles = set()
    for reference in cff["references"]:
        assert reference["type"] in {"article", "conference-paper"}
        assert reference["authors"] and all(
            {"family-names", "given-names"} <= set(a) for a in reference["authors"])
        titles.add(" ".join(reference["title"].split()))
    assert titles == {
        "Differentially-Private Collaborative Online Personalized Mean Estimation",
        "Communication-Constrained Private Decentralized Online Personalized Mean Estimation",
        (
            "Collaborative Mean Estimation over Intermittently Connected Networks with "
            "Peer-To-Peer Privacy"
        ),
        "Scalable Decentralized Algorithms for Online Personalized Mean Estimation",
    }
    # every paper the figures reproduce is linked: an arXiv URL (and Galante et al.'s DOI)
    linked = [r for r in cff["references"] if r.get("url", "").startswith("https://arxiv.org/abs/")]
    assert len(linked) == 4 and any(r.get("doi") == "10.1609/aaai.v39i16.33835" for r in linked)
    readme = (ROOT / "README.md").read_text()
    assert "## How to cite" in readme and "CITATION.cff" in readme


def test_a_non_editable_install_validates_every_shipped_config(tmp_path):
    """`pip install .` (a wheel, not the source tree) carries every schema the package
    reads: the installed colme (not src/, which is not on the path) validates config.yaml
    with each experiment merged over it, and imports no module from src/."""
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site), str(ROOT)],
        check=True, capture_output=True, text=True,
    )
    code = "\n".join([
        "import sys, colme",
        "from pathlib import Path",
        "from colme.config import load_config",
        "from colme.expansion import expand_config",
        f"root = Path({str(ROOT)!r})",
        f"assert Path(colme.__file__).is_relative_to({str(site)!r}), colme.__file__",
        "for experiment in [None, *sorted((root / 'experiments').glob('*.yaml')),",
        "                   *sorted((root / 'suites').glob('*.yaml'))]:",
        "    expansion = expand_config(load_config(root / 'config.yaml', experiment))",
        "    print(experiment and experiment.name, len(expansion.settings))",
        "assert not [m.__file__ for m in sys.modules.values()",
        "            if getattr(m, '__file__', None) and str(root / 'src') in m.__file__]",
    ])
    result = subprocess.run(
        # From the checkout's root, where the experiments' rule files are (src/ is not on the path).
        [sys.executable, "-W", "error::FutureWarning", "-c", code], cwd=ROOT, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(site)},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert len(result.stdout.splitlines()) == 1 + len(list((ROOT / "experiments").glob("*.yaml"))) + len(
        list((ROOT / "suites").glob("*.yaml")))
