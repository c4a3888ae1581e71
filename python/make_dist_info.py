#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""meson's dist-info of the package, from pyproject.toml (what pip's build reads too).

    make_dist_info.py PYPROJECT VERSION OUTDIR

Writes OUTDIR/METADATA (core metadata 2.1 as hatchling writes it: name,
version, summary, license expression, Python and package requirements,
extras) and OUTDIR/entry_points.txt, so a meson install is seen by
importlib.metadata and fsspec as pip's would be. VERSION is meson's
project version, which pip's build reads from meson.build too.

Reading pyproject.toml takes tomllib (Python >= 3.11) or, before 3.11, the
tomli package (Debian's python3-tomli): python/meson.build checks for it.
"""

import os
import shutil
import sys

try:
    import tomllib
except ImportError:  # Python < 3.11
    try:
        import tomli as tomllib
    except ImportError:
        raise SystemExit("make_dist_info: Python < 3.11 needs tomli to read pyproject.toml "
                         "(python3-tomli)") from None


def with_extra(req: str, extra: str) -> str:
    """A requirement of an extra, its own marker (if any) kept."""
    spec, _, marker = req.partition(";")
    cond = f'extra == "{extra}"'
    return f"{spec.strip()}; ({marker.strip()}) and {cond}" if marker else f"{spec.strip()}; {cond}"


def metadata(project: dict, version: str) -> str:
    """The METADATA file's text."""
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {version}",
             f"Summary: {project['description']}"]
    lic = project.get("license")
    if isinstance(lic, str):  # PEP 639
        lines.append(f"License-Expression: {lic}")
    elif lic and "text" in lic:
        lines.append(f"License: {lic['text']}")
    lines += [f"Classifier: {c}" for c in project.get("classifiers", [])]
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {r}" for r in project.get("dependencies", [])]
    for extra, reqs in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f"Requires-Dist: {with_extra(r, extra)}" for r in reqs]
    return "\n".join(lines) + "\n"


def entry_points(project: dict) -> str:
    """The entry_points.txt file's text (console scripts included)."""
    groups = dict(project.get("entry-points", {}))
    if project.get("scripts"):
        groups["console_scripts"] = project["scripts"]
    out = []
    for group, entries in groups.items():
        out.append(f"[{group}]")
        out += [f"{name} = {target}" for name, target in entries.items()]
        out.append("")
    return "\n".join(out)


def main(argv) -> int:
    """Write the dist-info directory afresh (its mtime tells ninja it changed)."""
    if len(argv) != 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    pyproject, version, outdir = argv
    with open(pyproject, "rb") as f:
        project = tomllib.load(f)["project"]
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    with open(os.path.join(outdir, "METADATA"), "w") as f:
        f.write(metadata(project, version))
    with open(os.path.join(outdir, "entry_points.txt"), "w") as f:
        f.write(entry_points(project))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
