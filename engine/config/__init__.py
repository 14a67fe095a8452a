"""What to run, as people write it: job specs and TOML presets (``spec``), where presets
live (``presets``), a preset's sweep (``sweep``), the site configuration of each system's
tools (``site``), and the TOML reading they share (``tomlfile``)."""
