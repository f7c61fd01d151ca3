"""The default style: Chicago Manual of Style 18th edition, author-date.

It is the CSL style pandoc ships as its default (``chicago-author-date.csl``, CC BY-SA 3.0, by the
Citation Style Language project), run by our own engine; ``tests/core/test_pandoc_oracle.py``
compares our output with pandoc's.
"""

from __future__ import annotations

from refbook.styles import CslStyle


class ChicagoAuthorDate(CslStyle):
    name = "chicago-author-date"
    csl_file = "chicago-author-date.csl"
    kind = "author-date"
