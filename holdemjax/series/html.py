"""JSON inside HTML pages (the series viewer, the duplicate reports): one escaping rule."""

from __future__ import annotations

import json

__all__ = ["embed_json"]


def embed_json(doc) -> str:
    """``doc`` as JSON text that is safe inside an HTML ``<script>`` element.

    The HTML parser ends a script element at the first ``</script`` and treats ``<!--`` specially,
    whatever JavaScript or JSON would make of it, so ``<``, ``>`` and ``&`` are written as
    ``\\u003c`` escapes: the same characters to ``JSON.parse``, inert to the HTML parser.
    ``ensure_ascii`` also escapes U+2028/U+2029. NaN and infinities are refused (not JSON).
    """
    text = json.dumps(doc, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
