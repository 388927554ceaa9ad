"""MkDocs hook (mkdocs.yml): the pages generated from the code's own sources are current.

The configuration reference, the choices made where the papers are silent, the claims
page and one page per published build (docs/default, docs/paper, docs/experiments/*) are
written by ``python -m colme.docpages`` (``make docs`` runs it) and committed, so that
links to them work in a checkout too; a build from a stale copy is refused.
"""

from pathlib import Path

from mkdocs.exceptions import PluginError

from colme import docpages

ROOT = Path(__file__).resolve().parents[1]


def on_config(config):
    # Snippets (the tutorial's experiments/*.yaml) from the repository, whatever the cwd.
    config["mdx_configs"]["pymdownx.snippets"]["base_path"] = [str(ROOT)]
    stale = docpages.stale_pages(ROOT)
    if stale:
        raise PluginError(
            f"generated page(s) or published numbers out of date: {', '.join(stale)}; "
            "run `python -m colme.docpages` (or `make docs`, which runs it)"
        )
    return config
