"""Checks of the built site (``make docs`` runs this after Sphinx).

1. **Offline**: no page, style sheet or script of the site loads anything from the network
   (a ``src`` or a ``<link href>`` to another host, a CSS ``url()`` or ``@import`` of one, a
   script that fetches a URL). Links a reader may follow (``<a href="https://...">``) are fine.
2. **Internal links**: every relative link of every page resolves to a file of the site, and
   its ``#fragment`` to an element of that file.
3. **API**: every public name (``docs/_ext/bayes_eval_docs.api_entries``) has its entry in the
   site's object inventory, where it is documented.

Usage: ``python docs/check_site.py [BUILD_DIR]`` (default ``docs/_build/html``); exits 1 and
lists every failure.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

DOCS = Path(__file__).resolve().parent
REMOTE = re.compile(r"^(https?:)?//", re.I)
#: a style sheet or script that would load from another host
CSS_REMOTE = re.compile(r"""(@import\s+(url\()?\s*['"]?|url\(\s*['"]?)(https?:)?//""", re.I)
JS_REMOTE = re.compile(r"""(fetch|importScripts|XMLHttpRequest)\s*\(\s*['"](https?:)?//""")


class _Page(HTMLParser):
    """The ids, the links and the loaded resources of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.loads: list[str] = []
        self._in_style = False
        self.style = ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if attrs.get("src"):
            self.loads.append(attrs["src"])
        if tag == "link" and attrs.get("href"):
            self.loads.append(attrs["href"])
        if attrs.get("style"):
            self.style += attrs["style"]
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.style += data


def check(build: Path) -> list[str]:
    """Every failure of the three checks, one line each."""
    return site_failures(build) + _api_failures(build)


def site_failures(build: Path) -> list[str]:
    """The failures of the offline and internal-link checks, one line each."""
    failures: list[str] = []
    pages: dict[Path, _Page] = {}
    for path in sorted(build.rglob("*.html")):
        page = _Page()
        page.feed(path.read_text(encoding="utf-8", errors="replace"))
        pages[path.resolve()] = page
    for path, page in pages.items():
        name = path.relative_to(build.resolve())
        for url in page.loads:
            if REMOTE.match(url):
                failures.append(f"{name}: loads {url} from the network")
        if CSS_REMOTE.search(page.style):
            failures.append(f"{name}: an inline style loads from the network")
        failures.extend(_link_failures(name, path, page, pages))
    for path in sorted(build.rglob("*.css")):
        if CSS_REMOTE.search(path.read_text(encoding="utf-8", errors="replace")):
            failures.append(f"{path.relative_to(build)}: loads from the network")
    for path in sorted(build.rglob("*.js")):
        if JS_REMOTE.search(path.read_text(encoding="utf-8", errors="replace")):
            failures.append(f"{path.relative_to(build)}: fetches from the network")
    return failures


def _link_failures(name: Path, path: Path, page: _Page, pages: dict[Path, _Page]) -> list[str]:
    """The page's internal links whose target, or its ``#fragment``, does not exist."""
    failures = []
    for href in page.links:
        if REMOTE.match(href) or href.startswith(("mailto:", "javascript:", "data:")):
            continue
        parts = urlsplit(href)
        target = path if not parts.path else (path.parent / unquote(parts.path)).resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.exists():
            failures.append(f"{name}: broken link {href}")
        elif parts.fragment and target in pages:
            if unquote(parts.fragment) not in pages[target].ids:
                failures.append(f"{name}: no #{parts.fragment} in {href}")
    return failures


def _api_failures(build: Path) -> list[str]:
    from sphinx.util.inventory import InventoryFile

    sys.path.insert(0, str(DOCS / "_ext"))
    from bayes_eval_docs import api_entries

    with open(build / "objects.inv", "rb") as f:
        inventory = InventoryFile.load(f, "", lambda base, uri: uri)
    documented = {
        name for kind, objects in inventory.items() if kind.startswith("py:") for name in objects
    }
    failures = []
    for sections in api_entries().values():
        for section in sections:
            names = [f"{section.module}.{n}" for n in section.own]
            names += list(section.elsewhere.values())
            failures += [f"API: {n} is not documented" for n in names if n not in documented]
    return failures


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    build = Path(argv[0]) if argv else DOCS / "_build" / "html"
    failures = check(build)
    for line in failures:
        print(line)
    pages = sum(1 for _ in build.rglob("*.html"))
    print(f"check_site: {pages} pages, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
