"""A run's directory, as the job's side writes it: the file names, ``exit.json`` (how the
job ended, recorded even on a full disk), ``state.jsonl`` (what the launcher and the
wrapper learn) and the typed records ``launch.json``, ``wrapper.json``, ``meta.json``.
Cheap to import: the detached wrapper loads this, the core, and nothing of the store, the
configuration or the plug-ins."""
