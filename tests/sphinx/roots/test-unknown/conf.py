project = "unknown"
extensions = ["sphinx_refbook"]
refbook_bibfiles = ["refs.bib"]
