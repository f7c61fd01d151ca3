project = "modes"
extensions = ["sphinx_refbook"]
refbook_bibfiles = ["refs.bib"]
