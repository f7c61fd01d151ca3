"""MkDocs plugin for refbook (the host adapter; the core is ``refbook``): ``plugins: [refbook]``.

Modules, in the order of the flow: ``options`` (the one option declaration → MkDocs schema,
settings, docs table), ``extension`` (Python-Markdown: citation syntax → placeholders, never in
code), ``plugin`` (MkDocs events: collect pages, resolve the book in ``on_env``, fill pages),
``rendering`` (resolved IR → linked HTML), ``report`` (diagnostics → MkDocs' plugin logger).
"""

from __future__ import annotations
