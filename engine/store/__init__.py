"""The run store: the runs (``runs``: one private directory each, the truth), the SQLite
index that catalogues them (``index``), and comparisons of runs (``compare``). Never
imports a launcher: a run's launcher is a name checked against the installed ones."""
