"""The one Jinja environment every page kind renders with (templates in generator/templates/)."""

from __future__ import annotations

import hashlib
from functools import lru_cache

import jinja2

from generator.kb.text import esc
from generator.render.labels import label, long_date, release
from generator.render.page import HTML_CLOSE, HTML_OPEN, source_line

_ENV_OPTIONS = dict(
    autoescape=False,  # output is Markdown; text fields go through the `e` filter below
    keep_trailing_newline=True,
    auto_reload=False,  # templates do not change during a build: no stat() per page
    trim_blocks=True,
    lstrip_blocks=True,
    comment_start_string="{#-#", comment_end_string="#-#}",  # Markdown uses {#anchor}
)


@lru_cache(maxsize=1)
def env() -> jinja2.Environment:
    # Compiled templates are kept between builds: compiling them took 0.06-0.1 s of every
    # build, on one core (half of emit at 100 entries). Jinja checks each cached template
    # against its source, but not against the options it was compiled with, so those and
    # Jinja's version name the cache files. The folder is the user's own, under the temp folder.
    key = hashlib.sha256(repr((jinja2.__version__, sorted(_ENV_OPTIONS.items()))).encode()).hexdigest()[:16]
    try:
        cache: jinja2.BytecodeCache | None = jinja2.FileSystemBytecodeCache(pattern=f"atlas-{key}-%s.cache")
    except (RuntimeError, OSError):  # no safe folder: compile every time
        cache = None
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("generator", "templates"), bytecode_cache=cache,
        undefined=jinja2.Undefined,  # optional YAML fields are simply absent
        **_ENV_OPTIONS,
    )
    env.filters["e"] = esc
    env.filters["label"] = label
    env.filters["release"] = release
    env.filters["longdate"] = long_date
    env.globals["source_line"] = source_line
    env.globals["html_open"], env.globals["html_close"] = HTML_OPEN, HTML_CLOSE  # around structure written as HTML
    return env
