"""The way off MkDocs 1.x, proven on every run: ProperDocs (the maintained drop-in fork of
MkDocs) builds the real site with the same plugin and theme, and every file it writes is
byte-identical to the MkDocs build but for the generator meta tag that names the tool
(and the compressed sitemap, compared decompressed: gzip stamps the time)."""

import gzip
import os
import re
from pathlib import Path

from conftest import BIN, REPO, run

GENERATOR_TAG = re.compile(rb'<meta name="generator" content="[^"]*">')


def _files(site: Path) -> dict[str, bytes]:
    out = {}
    for f in sorted(site.rglob("*")):
        if f.is_file():
            data = f.read_bytes()
            if f.suffix == ".gz":
                data = gzip.decompress(data)
            elif f.suffix == ".html":
                data = GENERATOR_TAG.sub(b"", data)
            out[f.relative_to(site).as_posix()] = data
    return out


def test_properdocs_builds_the_same_site_as_mkdocs(site, tmp_path):
    out = tmp_path / "properdocs-site"
    result = run([str(BIN / "properdocs"), "build", "--strict", "-f", "mkdocs.yml", "--site-dir", str(out)], cwd=REPO,
                 env={**os.environ, "ATLAS_WORKERS": "2"})
    assert result.returncode == 0, result.stderr[-4000:]
    assert "generated pages in 2 processes" in result.stderr  # our plugin ran, on the parallel path
    ours, theirs = _files(site), _files(out)
    assert len(ours) > 500
    assert sorted(ours) == sorted(theirs)
    different = [name for name in ours if ours[name] != theirs[name]]
    assert different == [], different[:20]
    tags = GENERATOR_TAG.findall((out / "index.html").read_bytes())
    assert tags and b"properdocs" in tags[0].lower()  # really built by ProperDocs
