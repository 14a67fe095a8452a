"""Everything Slurm: its two launchers (``sbatch``: ``launcher = "slurm"``; ``srun``), the
commands they share (``commands``: the ``[slurm]`` knobs as flags, submission, the one
queue poller), its accounting (``accounting``: ``sacct``), and reading what it writes: a
job's output (``log_dialect``), its tables (``tables``, ``sinfo``) read as runs
(``table_dialect``), and its GRES (``gres``: how a system is available through it)."""
