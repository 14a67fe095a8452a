"""accelbench's own systems, one package each, registered in pyproject.toml (``accelbench.systems``)."""
