"""``condense``: what a build log shows of many diagnostics (every error and warning, the first
infos of each code, one line for the rest of a code's infos)."""

from __future__ import annotations

from refbook.diagnostics import Code, Diagnostic, Severity
from refbook.models import Location
from refbook.validate.report import INFO_LIMIT, condense


def test_the_first_infos_of_each_code_and_a_count_of_the_rest() -> None:
    diags = []
    for i in range(INFO_LIMIT + 7):
        diags.append(Diagnostic(Code.UNUSED_ENTRY, f"unused {i}", Location("a.bib", i), key=f"k{i}"))
        if i % 3 == 0:
            diags.append(Diagnostic(Code.TITLE_CASE, f"case {i}", Location("a.bib", i)))
        if i % 2 == 0:  # a warning code made info by the options: counted as an info
            diags.append(Diagnostic(Code.PAGES_DASH, f"dash {i}", Location("a.bib", i),
                                    severity=Severity.INFO))
        if i == 5:  # an info code made a warning: always shown
            diags.append(Diagnostic(Code.UNUSED_ENTRY, "loud", None, severity=Severity.WARNING))
    shown, lines = condense(diags)
    infos = [d for d in shown if d.effective_severity is Severity.INFO]
    unused = [d for d in infos if d.code is Code.UNUSED_ENTRY]
    dashes = [d for d in infos if d.code is Code.PAGES_DASH]
    assert [d.message for d in unused] == [f"unused {i}" for i in range(INFO_LIMIT)]
    assert len(dashes) == (INFO_LIMIT + 7 + 1) // 2  # 14 of them: all shown
    assert sum(d.code is Code.TITLE_CASE for d in shown) == (INFO_LIMIT + 7 + 2) // 3
    assert any(d.message == "loud" for d in shown)
    # the order of the input is kept
    assert shown == [d for d in diags if d in shown]
    assert lines == [("7 more refbook.unused-entry (info) not shown; 'refbook check' lists each, "
                      "and setting its severity to warning lists them here too (or off to hide "
                      "them)")]
    shown, lines = condense(diags, limit=3)
    assert [line.split(" (info)")[0] for line in lines] == [
        f"{INFO_LIMIT + 4} more refbook.unused-entry",
        f"{(INFO_LIMIT + 8) // 2 - 3} more refbook.pages-dash"]
