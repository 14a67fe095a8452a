"""What a plug-in is: the ``System`` and ``Launcher`` base types, the entry points they
are registered under, the tables derived from the installed ones (``registry``,
``launcher.launchers``), and the probes systems detect themselves with."""
