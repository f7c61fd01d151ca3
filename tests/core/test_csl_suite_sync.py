"""benchmarks/csl_suite.py --sync-expected: keeping a list of expected failures up to date."""

from __future__ import annotations

from pathlib import Path

from benchmarks.csl_suite import Outcome, sync_expected


def test_sync_drops_passing_adds_reasoned_and_names_the_rest(tmp_path: Path) -> None:
    ours, theirs = tmp_path / "debian", tmp_path / "current"
    ours.mkdir()
    theirs.mkdir()
    for name, text in (("a_Fixed", "x"), ("b_Still", "y"), ("c_Same", "same"), ("d_Older", "old")):
        (ours / f"{name}.txt").write_text(text, encoding="utf-8")
    (theirs / "c_Same.txt").write_text("same", encoding="utf-8")
    (theirs / "d_Older.txt").write_text("newer text", encoding="utf-8")
    listing = tmp_path / "debian.txt"
    listing.write_text("# header\n\nb_Still why b\na_Fixed why a\n", encoding="utf-8")
    reasons = tmp_path / "canonical.txt"
    reasons.write_text("c_Same why c\nd_Older why d\n", encoding="utf-8")
    outcomes = [Outcome("a_Fixed", "a", True), Outcome("b_Still", "b", False),
                Outcome("c_Same", "c", False), Outcome("d_Older", "d", False),
                Outcome("e_New", "e", False)]
    (ours / "e_New.txt").write_text("new", encoding="utf-8")
    unreasoned = sync_expected(outcomes, listing, ours, reasons, theirs)
    assert listing.read_text(encoding="utf-8") == (
        "# header\n\nb_Still why b\nc_Same why c\n")
    # d's text differs from the copy its reason was written for; e has no reason anywhere
    assert unreasoned == ["d_Older", "e_New"]
