project = "migration"
extensions = ["sphinxcontrib.bibtex"]
bibtex_bibfiles = ["refs.bib"]
bibtex_default_style = "alpha"
bibtex_reference_style = "author_year"
