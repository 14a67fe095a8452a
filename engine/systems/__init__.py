"""accelbench's own systems, one package each, registered in pyproject.toml.

Their entry points are in the ``accelbench.systems`` group, as a third-party system's are.
"""
