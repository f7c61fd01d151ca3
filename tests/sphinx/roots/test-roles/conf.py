project = "roles"
extensions = ["sphinx_refbook"]
refbook_bibfiles = ["refs.bib"]
copyright = "2026, refbook"
version = "1.0"
