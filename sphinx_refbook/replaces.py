"""refbook in sphinxcontrib-bibtex's place when a project's extension list names both.

Where it sits: called first by ``sphinx_refbook.setup``. Jupyter Book 1 appends
``sphinxcontrib.bibtex`` to the extensions itself whenever ``_config.yml`` sets
``bibtex_bibfiles`` (after ``sphinx: extra_extensions``), so a book that adds ``sphinx_refbook``
lists both; loaded together they register the same options, roles, directives and domains and
Sphinx stops with "Config value 'bibtex_default_style' already present". refbook reads
sphinxcontrib-bibtex's configuration, roles and directives, so it takes that extension's place:
its name is marked as loaded (by refbook) and Sphinx skips it, with one info line saying so.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from sphinx.extension import Extension
from sphinx.util import logging

from refbook import __version__
from sphinx_refbook import report

if TYPE_CHECKING:
    from sphinx.application import Sphinx

SCB = "sphinxcontrib.bibtex"
logger = logging.getLogger("sphinx_refbook")


WRONG_ORDER = (f'sphinx_refbook replaces {SCB}, which is loaded already: remove "{SCB}" from '
               'extensions (or list "sphinx_refbook" before it, and refbook takes its place)')


def take_place(app: Sphinx) -> bool:
    """Keep sphinxcontrib-bibtex from loading after refbook. False: it is loaded already, and
    refbook must not set itself up (an error says so and the build fails)."""
    if SCB in app.extensions:
        # listed before refbook: it cannot be unloaded any more, and refbook's registrations
        # would collide with its (Sphinx 8 and 9 print an exception raised here as a crash
        # report): an error now, and a failed build at the end, as for any configuration error
        report.config_error(WRONG_ORDER, None)
        app.connect("build-finished", _fail)
        return False
    if SCB not in app.config.extensions:
        return True
    # Sphinx's loader skips a name that app.extensions holds; the module is refbook's, so
    # needs_extensions and the environment's extension check see refbook under that name
    app.extensions[SCB] = Extension(SCB, sys.modules["sphinx_refbook"], version=__version__,
                                    parallel_read_safe=True, parallel_write_safe=True)
    logger.info(f"refbook: {SCB} is in extensions too (Jupyter Book adds it when _config.yml "
                f"sets bibtex_bibfiles); sphinx_refbook reads its options, roles and "
                f"directives and takes its place, so {SCB} is not loaded")
    return True


def _fail(app: Sphinx, _exception: BaseException | None) -> None:
    report.finish(app, ["sphinx_refbook was not set up: " + WRONG_ORDER])
