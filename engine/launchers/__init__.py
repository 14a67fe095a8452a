"""accelbench's own launchers: a local process (``local``), Slurm's two (``slurm/``), and
the detached wrapper every job runs under (``jobwrap``: ``python -m
accelbench.engine.launchers.jobwrap RUN_DIR``, which loads nothing heavier than the run
directory's writers). The base class and the table of installed launchers are
``engine.plugin.launcher``'s; these register under the ``accelbench.launchers``
entry-point group exactly as a plug-in's do.
"""
