"""accelbench's engine, in floors that import only those below them (docs/architecture.md;
checked by import-linter): core, rundir, telemetry, the dialects and workloads, plugin,
config, store, the launchers and systems, run, and on top view and logs. No Textual here;
Rich only in view/."""

__version__ = "0.1.0"
