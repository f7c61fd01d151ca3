project = "myst"
extensions = ["myst_parser", "sphinx_refbook"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
refbook_bibfiles = ["refs.bib"]
