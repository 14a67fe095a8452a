"""accelbench's engine: specs, runs, launchers, parsers, telemetry. No UI code here."""

__version__ = "0.1.0"
