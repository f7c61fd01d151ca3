"""Diagnostics → Sphinx's logger, and the failed build (strict mode, unusable configuration).

Where it sits: the core returns ``refbook.diagnostics.Diagnostic`` values; this module is the only
place that logs them, always with ``type="refbook"`` and the code's slug as subtype, so
``suppress_warnings = ["refbook.unknown-key"]`` and ``-W`` work as for Sphinx's own warnings.
A build that refbook fails ends as a failed ``-W`` build does: the problems listed at their
``file:line``, an error line, a non-zero exit status — never an exception.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

import sphinx
from sphinx.util import logging
from sphinx.util.logging import is_suppressed_warning

from refbook.diagnostics import Severity
from refbook.validate.report import condense

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment

    from refbook.diagnostics import Diagnostic

logger = logging.getLogger("sphinx_refbook")


def location(diagnostic: Diagnostic, env: BuildEnvironment) -> str | tuple[str, int] | None:
    """Sphinx's location: ``(docname, line)`` for a page, ``"file:line"`` for a .bib file."""
    loc = diagnostic.location
    if loc is None:
        return None
    if loc.file in env.all_docs or loc.file in env.found_docs:
        return (loc.file, loc.line)
    # Sphinx reads a location without ":" as a docname; a whole-file problem names its file in
    # the message already
    return f"{loc.file}:{loc.line}" if loc.line else None


def message(diagnostic: Diagnostic) -> str:
    return f"{diagnostic.message} ({diagnostic.hint})" if diagnostic.hint else diagnostic.message


def with_scb_words(text: str, words: str, config: Config) -> str:
    """``text`` and, in sphinxcontrib-bibtex's look (``bibtex_*`` options, no refbook style),
    sphinxcontrib-bibtex's own words for the same problem after it: what a migrated project's
    scripts, tests and habits search the build log for keeps matching, while refbook's message,
    ``file:line``, hint and code stay first."""
    if not words:
        return text
    from sphinx_refbook.config import compat_mode

    return f"{text} [sphinxcontrib-bibtex: {words}]" if compat_mode(config) else text


def _text(diagnostic: Diagnostic, config: Config) -> str:
    from sphinx_refbook.compat import scb_words

    return with_scb_words(message(diagnostic), scb_words(diagnostic), config)


def log(diagnostics: Iterable[Diagnostic], env: BuildEnvironment) -> None:
    """Errors and warnings as Sphinx warnings; infos as info lines (many of one code summed up)."""
    shown, summaries = condense(diagnostics)
    for d in shown:
        where = location(d, env)
        if d.effective_severity is Severity.INFO:
            logger.info(f"{_place(where, env)}info: {_text(d, env.config)} [{d.code.qualified}]")
        else:
            logger.warning(_text(d, env.config) + code_suffix(d.code.slug, env.config),
                           type="refbook",
                           subtype=d.code.slug, location=where)
    for line in summaries:
        logger.info(f"refbook: {line}")


def code_suffix(slug: str, config: Config) -> str:
    """`` [refbook.<code>]`` at the end of a warning — the name ``suppress_warnings`` takes —
    which Sphinx 8 and later add themselves (``show_warning_types``, off by default before 8)."""
    if sphinx.version_info >= (8,) or getattr(config, "show_warning_types", False):
        return ""
    return f" [refbook.{slug}]"


def _place(where: str | tuple[str, int] | None, env: BuildEnvironment) -> str:
    if isinstance(where, tuple):
        return f"{env.doc2path(where[0])}:{where[1]}: "
    return f"{where}: " if where else ""


def warn(slug: str, text: str, where: tuple[str, int], env: BuildEnvironment) -> bool:
    """A problem found while reading a page, as the validation options level it.

    Returns whether it counts for strict mode (an error or warning that is not off).
    """
    from refbook.diagnostics import Code
    from sphinx_refbook.config import settings

    code = Code.from_slug(slug)
    check = settings(env.config).check
    level = check.severity_of(code) if code is not None and check.enabled(code) else None
    if code is not None and level is None:
        return False
    if level is Severity.INFO:
        logger.info(f"{env.doc2path(where[0])}:{where[1]}: info: {text} [refbook.{slug}]")
        return False
    logger.warning(text + code_suffix(slug, env.config), type="refbook", subtype=slug,
                   location=where)
    return True


def config_error(text: str, where: str | None, suffix: str = "") -> None:
    """A configuration problem, as an error (no ``type``: ``suppress_warnings`` cannot hide it).

    Logged outside ``-W``'s reach on Sphinx 7 (which would stop at the first one), so that every
    problem is listed; the build's status says it failed (:func:`finish`).
    """
    if where is not None and ":" not in where:
        # Sphinx takes a location without a colon for a document name and looks it up in the
        # environment, which does not exist yet at config-inited: name the file in the text
        text, where = f"{where}: {text}", None
    with _keep_going():
        logger.error(f"{text}{suffix}", location=where)


def strict_count(problems: Iterable[tuple[str, str]], config: Config) -> int:
    """How many (slug, text) problems count for strict mode: those ``suppress_warnings`` keeps."""
    return sum(1 for slug, _ in problems
               if not is_suppressed_warning("refbook", slug, config.suppress_warnings))


def finish(app: Sphinx, failures: Sequence[str]) -> None:
    """``build-finished``: end a build that refbook fails the way Sphinx ends a ``-W`` build —
    an error line under the problems already listed and a non-zero exit status, never an
    exception (Sphinx 8 and 9 print any exception as a crash report)."""
    if not failures:
        return
    with _keep_going():
        for text in failures:
            logger.error(text)
    app.statuscode = app.statuscode or 1


def _keep_going() -> AbstractContextManager[object]:
    # Sphinx < 8.1 raises at the first error under -W; later versions count it instead
    skip = getattr(logging, "skip_warningiserror", None)
    return skip() if skip is not None else nullcontext()


def describe(diagnostic: Diagnostic, env: BuildEnvironment) -> tuple[str, str]:
    where = location(diagnostic, env)
    if isinstance(where, tuple):
        place = f"{env.doc2path(where[0])}:{where[1]}"
    else:
        place = where or (str(diagnostic.location) if diagnostic.location else "")
    text = f"{place}: {message(diagnostic)} [{diagnostic.code.qualified}]" if place else (
        f"{message(diagnostic)} [{diagnostic.code.qualified}]")
    return diagnostic.code.slug, text
