"""Write time: fill citations and reference lists with the book's resolution.

Where it sits: a post-transform that runs before Sphinx resolves cross-references (priority 5 <
10). Each ``citation_node`` becomes its formatted text with a ``pending_xref`` per cited key
(resolved by the domain to ``ref-<key>`` on whichever page lists it, with the formatted entry as
hover title); each ``bibliography_node`` becomes the list the core lays out
(``refbook.render.reference_list``): one paragraph per entry, anchored ``ref-<key>``, followed by
links back to every citing place. The automatic list (no directive anywhere) is appended to the
root document.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils import nodes
from docutils.nodes import make_id
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.nodes import make_refnode

from refbook.gcpause import paused_gc
from refbook.ir import Span, Text
from refbook.render.reference_list import (
    BACKLINKS_CLASS,
    BACKLINKS_GAP,
    ENTRY_CLASSES,
    reference_list,
)
from refbook.render.reference_list import backlinks as entry_backlinks
from refbook.render.text import to_line
from refbook.styles import get_style
from sphinx_refbook.config import problems as config_problems
from sphinx_refbook.config import settings
from sphinx_refbook.domain import domain_of
from sphinx_refbook.nodes import (
    bibliography_node,
    citation_node,
    foot_author_node,
    foot_entry_node,
    footcite_node,
)
from sphinx_refbook.notes import anchor_at_reference, note_author_node, note_authors
from sphinx_refbook.render import item_key, to_nodes
from sphinx_refbook.spec import cite_anchor

if TYPE_CHECKING:
    from refbook.ir import Inline, Inlines
    from refbook.render.reference_list import BackLinks
    from sphinx_refbook.compat import Compat
    from sphinx_refbook.spec import Book, ListSpec


class ResolveCitations(SphinxPostTransform):
    default_priority = 5
    _kind = "author-date"
    _compat: Compat | None = None
    #: the number an enumerated list with ``:start: continue`` goes on from (per page)
    _enum_count = 1

    def run(self, **kwargs: Any) -> None:
        cites = list(self.document.findall(citation_node))
        lists = list(self.document.findall(bibliography_node))
        foots = list(self.document.findall(footcite_node))
        foot_entries = list(self.document.findall(foot_entry_node))
        docname = self.env.docname
        auto = docname == self.config.root_doc
        if not cites and not lists and not foots and not foot_entries and not auto:
            return
        # the collector paused while the page's nodes are made: each allocation burst set off
        # collections that rescanned the whole environment (and the book's formatted texts);
        # the nodes go with the page once it is written (not lasting: they stay young)
        with paused_gc(lasting=False):
            self._run(cites, lists, foots, foot_entries, docname, auto)

    def _run(self, cites: list[citation_node], lists: list[bibliography_node],
             foots: list[footcite_node], foot_entries: list[foot_entry_node], docname: str,
             auto: bool) -> None:
        if config_problems(self.config):  # the build fails on them: show the source, no lists
            for node in cites:
                node.replace_self(_as_written(node))
            for node in lists:
                node.parent.remove(node)
            placeholders: list[nodes.Element] = [*foots, *foot_entries]
            for placeholder in placeholders:  # their children: the keys
                placeholder.replace_self(placeholder.children)
            return
        book = domain_of(self.env).book()
        self._compat = settings(self.config).compat
        self._kind = "pybtex" if self._compat else get_style(settings(self.config).style).kind
        self._enum_count = 1
        notes = note_authors(self.document) if any(
            True for _ in self.document.findall(note_author_node)) else {}
        for author in list(self.document.findall(note_author_node)):
            author.replace_self(self._note_author(author, notes, book))
        for node in cites:
            node.replace_self(self._citation(node, book))
        for node in lists:
            spec: ListSpec = node["spec"]
            node.replace_self(self._list(spec, book))
        for foot in foots:
            foot.replace_self(self._footcite(foot, book))
        for entry in foot_entries:
            entry.replace_self(_foot_entry(entry["key"], book, self._compat is None))
        if auto:
            for spec in book.specs:
                if spec.index == -1 and spec.docname == docname:
                    self._append_auto(spec, book)

    # -- citations ---------------------------------------------------------------------------
    def _citation(self, node: citation_node, book: Book) -> list[nodes.Node]:
        doc: str = node.get("docname", self.env.docname)
        index = node.get("index")
        ir = book.resolution.citations.get((doc, index)) if index is not None else None
        if ir is None:  # read before the extension numbered it: show it as written
            return [_as_written(node)]
        if self._compat is None:  # a referencing style's text is final
            ir = _form(node.get("form", "p"), ir, book, self._kind)

        def on_item(span: Span, children: list[nodes.Node]) -> list[nodes.Node]:
            key = item_key(span)
            inner = nodes.inline("", "", *children)
            if book.real(key) not in book.entries:
                inner["classes"].append("refbook-unknown")
                return [inner]
            if book.target(doc, key) is None:
                if book.specs:  # in no list of a book that has lists: unlisted-citation
                    inner["classes"].append("refbook-unlisted")
                return [inner]
            # sphinxcontrib-bibtex's look links a bare label: <a …>Knu84</a>
            bare = self._compat is not None and len(children) == 1 and isinstance(
                children[0], nodes.Text)
            xref = addnodes.pending_xref("", children[0] if bare else inner, refdomain="refbook",
                                         reftype="cite",
                                         reftarget=key, refdoc=doc, refexplicit=True,
                                         refwarn=False)
            xref["refbook_title"] = book.tooltips.get(key, "")
            # as there, a label of several parts (<em>Title</em>, 2015) is linked as it is
            xref["refbook_unwrap"] = self._compat is not None and not bare
            return [xref]

        if self._compat is not None:
            # as sphinxcontrib-bibtex writes it: the citation's own span holds its id
            span = nodes.inline("", "", classes=["bibtex-citation"], ids=[cite_anchor(doc, index)])
            span += to_nodes(ir, on_item)
            return [span]
        out = nodes.inline("", "", classes=["refbook-citation"])
        out += to_nodes(ir, on_item)
        if anchor_at_reference(self.document, node, cite_anchor(doc, index)):
            return [out]  # a note: the back-links lead to its reference in the text
        anchor = nodes.target("", "", ids=[cite_anchor(doc, index)])
        return [anchor, out]

    def _note_author(self, author: note_author_node, notes: dict[str, citation_node],
                     book: Book) -> nodes.Node:
        """A narrative citation's author part in the text (note styles)."""
        node = notes.get(author["note"])
        ir = None if node is None else book.resolution.in_text.get(
            (node.get("docname", self.env.docname), node.get("index", -1)))
        if ir is None:
            return nodes.inline("", author.astext(), classes=["refbook-unknown"])
        return nodes.inline("", "", *to_nodes(ir), classes=["refbook-citation"])

    # -- footnote citations ------------------------------------------------------------------
    def _footcite(self, node: footcite_node, book: Book) -> nodes.inline:
        """The footnote references docutils numbered, each textual one after its author part."""
        doc: str = node.get("docname", self.env.docname)
        form: str = node.get("form", "p")
        authors = book.foot_authors.get((doc, node.get("index", -1)), {})
        out = nodes.inline("", "", classes=["refbook-footcite"])
        children = list(node.children)
        node.children = []
        parts = book.foot_texts.get((doc, node.get("index", -1)))
        refs = [c for c in children if isinstance(c, nodes.footnote_reference)]
        if parts is not None and len(parts) == len(refs) + 1:
            # a foot referencing style plugin's text, around the footnotes docutils numbered
            for part, ref in zip(parts, [*refs, None], strict=True):
                out += to_nodes(part)
                if ref is not None:
                    out += ref
            return out
        first = True
        for child in children:
            if isinstance(child, foot_author_node):
                key = child["key"]
                text = authors.get(key)
                # sphinxcontrib-bibtex capitalizes the citation's first letter only
                cap = form.startswith("c") and (first or self._compat is None)
                first = False
                if text is None or key not in book.foot_entries:
                    out += _unknown(key)
                    continue
                out += nodes.inline("", "", *to_nodes(_capitalize(text) if cap else text))
            else:
                out += child
        return out

    # -- lists -------------------------------------------------------------------------------
    def _list(self, spec: ListSpec, book: Book) -> list[nodes.Node]:
        """The core's list structure (``refbook.render.reference_list``) as nodes, element for
        element what the MkDocs plugin writes as HTML."""
        if self._compat is not None:  # the automatic list too: labels as the citations show
            return self._pybtex_list(spec, book, self._compat)
        listing = reference_list(
            ((k, book.entries.get(k, ())) for k in book.listed.get(spec.ident, ())),
            kind=self._kind, anchors=book.anchors.get(spec.ident, {}), backlinks=book.backlinks)
        box = nodes.container(classes=list(listing.classes))
        for entry in listing.entries:
            # the id is the paragraph's, as in MkDocs' HTML (see EntryLabels for LaTeX)
            para = nodes.paragraph(classes=list(entry.classes),
                                   ids=[entry.anchor] if entry.anchor is not None else [])
            para += to_nodes(entry.content)
            if entry.backlinks is not None:
                para += nodes.Text(BACKLINKS_GAP)
                para += self._backlinks(spec.docname, entry.backlinks)
            box += para
        return [box]

    def _pybtex_list(self, spec: ListSpec, book: Book, compat: Compat) -> list[nodes.Node]:
        """A list as sphinxcontrib-bibtex lays it out: docutils citations (label, entry), or a
        bullet or enumerated list of the entries; each entry followed by its back-links."""
        keys = book.listed.get(spec.ident, ())
        items = book.items.get(spec.ident, {})
        anchors = book.anchors.get(spec.ident, {})
        box: nodes.Element
        if spec.list_type == "enumerated":
            box = nodes.enumerated_list(enumtype=spec.enumtype)
            if spec.start >= 1:
                self._enum_count = spec.start
            box["start"] = self._enum_count
        elif spec.list_type == "bullet":
            box = nodes.bullet_list()
        else:
            box = nodes.container()
        box["classes"] += ["refbook-bibliography", "refbook-pybtex"]
        if compat.bibliography_id:
            box["ids"].append(make_id(compat.bibliography_id.format(
                bibliography_count=spec.index + 1)))
        for key in keys:
            label, text = items.get(key, ("", ()))
            para = nodes.paragraph("", "", *to_nodes(text))
            backs = book.backlinks.get(key)
            backrefs: list[str] = []
            if spec.list_type == "citation":
                # as sphinxcontrib-bibtex: the label links back to the page's own citations
                # (docutils' back-references); refbook's back-links name the other pages'
                places = book.citing.get(key, ())
                backrefs = list(dict.fromkeys(p.target.partition("#")[2] for p in places
                                              if p.document == spec.docname))
                if backs is not None:
                    backs = entry_backlinks([p for p in places if p.document != spec.docname])
            if backs is not None:
                para += nodes.Text(BACKLINKS_GAP)
                para += self._backlinks(spec.docname, backs)
            ids = [anchors[key]] if key in anchors else []
            item: nodes.Element
            if spec.list_type == "citation":
                item = nodes.citation("", nodes.label("", label, support_smartquotes=False),
                                      para, ids=ids)
                if backrefs:
                    item["backrefs"] = backrefs
                item["refbook"] = True  # (no class: the markup is sphinxcontrib-bibtex's)
                item["docname"] = spec.docname  # LaTeX's \bibitem key is docname:id
            else:
                item = nodes.list_item("", para, ids=ids, classes=["refbook-entry"])
                if spec.list_type == "enumerated":
                    self._enum_count += 1
            box += item
        if not keys:
            return [nodes.target()]
        return [box]

    def _backlinks(self, fromdoc: str, backs: BackLinks) -> nodes.inline:
        # the links made here with make_refnode, as the domain's resolve_xref makes a "site"
        # link: a page holds one per citing place, and Sphinx's resolver took a tenth of the
        # list page's time to resolve them
        out = nodes.inline("", "", classes=[BACKLINKS_CLASS])
        # (Sphinx 9 keeps the application private and deprecates the transform's ``app``)
        builder = (getattr(self.env, "_app", None) or self.app).builder
        for part in backs.parts:
            if isinstance(part, str):
                out += nodes.Text(part)
                continue
            label = nodes.inline(part.text, part.text)
            doc, _, anchor = part.target.partition("#")
            if doc not in self.env.all_docs:
                out += label  # (a page gone since: its text, unlinked)
                continue
            # singlehtml: one page, a same-page link (as resolve_xref)
            to = fromdoc if builder.name == "singlehtml" else doc
            out += make_refnode(builder, fromdoc, to, anchor, label)
        return out

    def _append_auto(self, spec: ListSpec, book: Book) -> None:
        header = settings(self.config).bibliography_header
        section = nodes.section(ids=["refbook-references"], names=["refbook-references"])
        section += nodes.title(header, header)
        section += self._list(spec, book)
        sections = [c for c in self.document.children if isinstance(c, nodes.section)]
        (sections[-1] if sections else self.document).append(section)


class EntryLabels(SphinxPostTransform):
    """LaTeX and Texinfo label a target node, not a paragraph's id: there, each entry's id moves
    to a target at the start of its paragraph, so citations still link to it."""

    default_priority = 6  # after ResolveCitations, before cross-references are resolved
    formats = ("latex", "texinfo")

    def run(self, **kwargs: Any) -> None:
        for para in self.document.findall(nodes.paragraph):
            if set(ENTRY_CLASSES) <= set(para["classes"]) and para["ids"]:
                para.insert(0, nodes.target("", "", ids=para["ids"]))
                para["ids"] = []
        # sphinxcontrib-bibtex's look: a citation's id keys its \bibitem; the links need a label
        for item in self.document.findall(nodes.citation):
            if item.get("refbook") and item["ids"] and len(item) > 1:
                item[1].insert(0, nodes.target("", "", ids=list(item["ids"])))


def visit_copied_citation(translator: Any, node: citation_node) -> None:
    """A citation copied out of its page before the writer filled it — a section title in a
    table of contents or a page's ``<title>`` — shows its formatted text (plain), as the heading
    does; without a resolved book, its source."""
    builder = getattr(translator, "builder", None)
    index = node.get("index")
    if builder is None or index is None or config_problems(builder.config):
        return
    book = domain_of(builder.env).book()
    ir = book.resolution.citations.get((node.get("docname", ""), index))
    if ir is None:
        return
    if settings(builder.config).compat is None:
        kind = get_style(settings(builder.config).style).kind
        ir = _form(node.get("form", "p"), ir, book, kind)
    text = to_line(ir)
    node.children = []
    node += nodes.Text(text)


def depart_copied_citation(translator: Any, node: citation_node) -> None:
    return None


#: the visitor pair of ``citation_node`` for every builder
COPIED_CITATION = (visit_copied_citation, depart_copied_citation)


def _foot_entry(key: str, book: Book, marked: bool = True) -> nodes.paragraph:
    """What a citation footnote says: the entry in the book's style. In sphinxcontrib-bibtex's
    look (``marked`` false) the paragraph is a plain one, as its footnotes' are."""
    entry = book.foot_entries.get(key)
    if entry is None:
        return nodes.paragraph("", "", _unknown(key))
    classes = ["refbook-footnote-entry"] if marked else []
    return nodes.paragraph("", "", *to_nodes(entry), classes=classes)


def _unknown(key: str) -> nodes.inline:
    """The marker of a key that no entry has, as a citation shows it."""
    return nodes.inline("", "", nodes.strong(f"{key}?", f"{key}?"), classes=["refbook-unknown"])


def _as_written(node: citation_node) -> nodes.inline:
    return nodes.inline(node.rawsource, node.rawsource, classes=["refbook-unknown"])


def _form(form: str, ir: Inlines, book: Book, kind: str) -> Inlines:
    """The roles' variants the core does not know: capitalized, year only, author only.

    A numeric style has no year or author part to show: those forms keep the number.
    """
    ir = _one_marker_per_unknown(ir, book)
    if form in ("ct", "cts"):
        return _capitalize(ir)
    if form in ("alp", "alps", "label"):
        return _strip_brackets(ir)
    if kind == "numeric" and form in (*_AUTHOR_FORMS, "year"):
        return ir
    if form == "year":
        return _strip_brackets(ir)
    if form in _AUTHOR_FORMS:
        from sphinx_refbook.book import author_spans

        spans = author_spans(ir)
        out: list[Inline] = []
        for i, s in enumerate(spans):
            if i:
                out.append(Text(" and " if i == len(spans) - 1 else ", "))
            out.append(s)
        authors: Inlines = tuple(out)
        if form.startswith("c"):
            authors = _capitalize(authors)
        if form in ("authorpar", "authorpars"):
            return (Text("("), *authors, Text(")"))
        return authors
    return ir


_AUTHOR_FORMS = ("author", "authors", "authorpar", "authorpars", "cauthor", "cauthors")


def _one_marker_per_unknown(ir: Inlines, book: Book) -> Inlines:
    """A narrative citation of an unknown key comes back as two markers (author, year): keep one."""
    out: list[Inline] = []
    last_unknown = ""
    for n in ir:
        if isinstance(n, Span) and n.role == "cite-item":
            key = item_key(n)
            if key not in book.entries and key == last_unknown:
                if out and isinstance(out[-1], Text):
                    out.pop()
                continue
            last_unknown = key if key not in book.entries else ""
        out.append(n)
    return tuple(out)


def _capitalize(ir: Inlines) -> Inlines:
    if not ir:
        return ir
    first = ir[0]
    if isinstance(first, Text):
        return (Text(first.text[:1].upper() + first.text[1:]), *ir[1:])
    if isinstance(first, Span):
        return (Span(first.role, _capitalize(first.children), first.key), *ir[1:])
    return ir


def _strip_brackets(ir: Inlines) -> Inlines:
    items = list(ir)
    if items and isinstance(items[0], Text) and items[0].text[:1] in "([":
        items[0] = Text(items[0].text[1:])
    if items and isinstance(items[-1], Text) and items[-1].text[-1:] in ")]":
        items[-1] = Text(items[-1].text[:-1])
    return tuple(i for i in items if not (isinstance(i, Text) and not i.text))
