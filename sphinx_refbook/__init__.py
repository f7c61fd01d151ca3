"""Sphinx extension for refbook (the host adapter). Grows with its own issue; the core is ``refbook``."""

from __future__ import annotations
