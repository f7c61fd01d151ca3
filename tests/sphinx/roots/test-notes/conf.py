project = "notes"
extensions = ["myst_parser", "sphinx_refbook"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
myst_enable_extensions = []
refbook_bibfiles = ["refs.bib"]
refbook_style = "chicago-notes-bibliography-subsequent-ibid"
