"""The stages in order, for the CLI, the MkDocs plugin and the tests to share."""

from __future__ import annotations

from pathlib import Path

from .findings import AtlasError
from .load import load_tree
from .model import Atlas, build_model
from .validate import validate


def find_root(start: Path | None = None) -> Path:
    """The repository root: the nearest folder upwards that holds glossary/."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "glossary").is_dir():
            return folder
    return here


def load_atlas(root: Path) -> Atlas:
    """Load and validate everything; raise AtlasError with every problem, or return the model."""
    docs, findings = load_tree(Path(root))
    findings += validate(docs)
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        raise AtlasError(errors)
    return build_model(docs)


def build_site_files(root: Path) -> dict[str, str]:
    """Every generated file for the site: load, validate, model, graph, emit."""
    from .emit import emit
    from .graph import build_graph

    atlas = load_atlas(root)
    return emit(atlas, build_graph(atlas))
