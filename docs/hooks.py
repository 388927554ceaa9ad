"""MkDocs hook (mkdocs.yml): adds the pages generated from the code's own sources.

The configuration reference, the choices made where the papers are silent, the claims
page and one page per published build (docs/default, docs/paper, docs/experiments/*) are
written by ``colme.docpages`` at every build, never copied into docs/.
"""

from pathlib import Path

from mkdocs.structure.files import File

from colme import docpages
from colme.config import load_schema

ROOT = Path(__file__).resolve().parents[1]


def on_config(config):
    # Snippets (the tutorial's experiments/*.yaml) from the repository, whatever the cwd.
    config["mdx_configs"]["pymdownx.snippets"]["base_path"] = [str(ROOT)]
    return config


def on_files(files, config):
    docs = Path(config["docs_dir"])
    pages = {
        "configuration.md": docpages.config_reference(load_schema()),
        "choices.md": docpages.choices_page(ROOT / "config.yaml", sorted((ROOT / "experiments").glob("*.yaml"))),
        "claims.md": docpages.claims_page(
            ROOT / "workflow" / "claims.yaml", {build: docs / build for build in ("default", "paper")}
        ),
    }
    builds = {"default": "Default preset build", "paper": "Paper preset build"}
    builds |= {
        f"experiments/{path.parent.name}": f"Experiment {path.parent.name}"
        for path in sorted((docs / "experiments").glob("*/build.json"))
    }
    for build, title in builds.items():
        pages[f"{build}/index.md"] = docpages.build_page(docs / build, title)
    for name, content in pages.items():
        files.append(File.generated(config, name, content=content))
    return files
