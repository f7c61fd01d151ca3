"""A numeric style, IEEE-like: ``[12]`` in the text, the list numbered by first citation.

The CSL file (``refbook-numeric.csl``) is our own; it uses the engine's ``citation-number``
collapse so ``[3], [4], [5]`` becomes ``[3]–[5]``.
"""

from __future__ import annotations

from refbook.styles import CslStyle


class Numeric(CslStyle):
    name = "numeric"
    csl_file = "refbook-numeric.csl"
    kind = "numeric"
