"""Logs people already have: a file read whole into runs and events (``logfile``: its
sections, the dialects detected in each), ``accelbench import`` (``importer``: each run of a
log becomes a finished run) and ``accelbench parse``'s JSON lines (``jsonlines``). The
dialects themselves are ``parsers/`` and ``reading/``, a floor below: systems bring theirs."""
