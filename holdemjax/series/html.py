"""HTML pages (the series viewer, the duplicate service's pages and report): one templating
scheme, Jinja2 with autoescape (`environment`), and one rule for JSON inside them
(`embed_json`)."""

from __future__ import annotations

import functools
import json

import jinja2
import markupsafe

__all__ = ["embed_json", "environment"]


def embed_json(doc) -> str:
    """``doc`` as JSON text that is safe inside an HTML ``<script>`` element.

    The HTML parser ends a script element at the first ``</script`` and treats ``<!--`` specially,
    whatever JavaScript or JSON would make of it, so ``<``, ``>`` and ``&`` are written as
    ``\\u003c`` escapes: the same characters to ``JSON.parse``, inert to the HTML parser.
    ``ensure_ascii`` also escapes U+2028/U+2029. NaN and infinities are refused (not JSON).
    """
    text = json.dumps(doc, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@functools.cache
def environment(package: str, *more: str) -> jinja2.Environment:
    """The Jinja2 environment of ``package``'s ``templates/`` folder (package data), then
    those of the packages ``more`` (a page that extends another package's), one per
    process: autoescape on (every value put in a page is HTML-escaped unless it is
    `markupsafe.Markup`), an undefined name is an error, and the filter ``embed_json`` puts a
    document in a ``<script type="application/json">`` element (`embed_json`'s text, marked
    safe: autoescaping it would break ``JSON.parse``, and it needs none). The series'
    templates are found after the package's own (``felt.html``: the table picture's markup)."""
    packages = dict.fromkeys((package, *more, __package__))
    loaders = [jinja2.PackageLoader(p, "templates") for p in packages]
    env = jinja2.Environment(loader=jinja2.ChoiceLoader(loaders),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True)
    env.filters["embed_json"] = lambda doc: markupsafe.Markup(embed_json(doc))
    return env
