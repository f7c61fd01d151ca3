"""refbook: the shared core that reads bibliographies, formats citations and reference lists.

The Sphinx extension (``sphinx_refbook``) and the MkDocs plugin (``mkdocs_refbook``) are thin
adapters over this package; nothing here imports a host.
"""

from __future__ import annotations

__version__ = "0.1.0"

# the compiled engine when built and current (refbook.accel): before any other module of the
# package is imported
from refbook import accel as _accel

_accel.install()
