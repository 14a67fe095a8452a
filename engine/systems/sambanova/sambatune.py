"""SambaTune's log (``sambatune app.yaml --modes benchmark instrument run``).

Each step it takes ends in ``19-Sep 17:43:26 - Info - SUCCESS: Compile App`` or ``... -
Error - FAILURE: Execute Snprof``, a failure followed by ``... - Error - Message: <why>``;
``--> Compiling PEF ...`` starts a compile, ``Compilation was finished and prepare to
run!`` the instrumented runs. A failed step is the run's failure (its diagnosis names the
step and the message). Stamps have no year: lines keep the time they are read at.
"""

from __future__ import annotations

from accelbench.engine.core.events import Diagnosis, Event, Phase
from accelbench.engine.core.patterns import lazy
from accelbench.engine.parsers import Dialect

_FAILURE = lazy(r" - Error - FAILURE: (.*\S)")
_MESSAGE = lazy(r" - Error - Message: (.*\S)")
_SNIFF = lazy(r"SambaTune is running on|\d - Info - SUCCESS: ")
_HINT = "a SambaTune step failed: read its message and the app's own output above it"


class SambaTune(Dialect):
    """SambaTune steps: compile and run phases, failed steps as diagnoses."""

    name = "sambatune"
    title = "SambaNova SambaTune"
    needs = (" - Error - ", "--> Compiling PEF", "Compilation was finished")
    sniff_needs = ("SambaTune is running on", " - Info - SUCCESS: ")

    def __init__(self, run_id: str) -> None:
        super().__init__(run_id)
        self._phase = ""
        self._failed = ""  # a failed step whose message has not come yet

    def _enter(self, ts: float, name: str, detail: str) -> list[Event]:
        if self._phase == name:
            return []
        self._phase = name
        return [Phase(self.run_id, ts, name, detail)]

    def _flush(self, ts: float, message: str = "") -> list[Event]:
        """The diagnosis of the failed step waiting for its message."""
        step, self._failed = self._failed, ""
        if not step:
            return []
        return [Diagnosis(self.run_id, ts, "sambatune_step_failed",
                          f"SambaTune: {step} failed" + (f": {message}" if message else ""),
                          _HINT)]

    def feed(self, line: str, ts: float) -> list[Event]:
        if m := _MESSAGE.search(line):
            return self._flush(ts, m[1])
        events = self._flush(ts)
        if m := _FAILURE.search(line):
            self._failed = m[1]
        elif "--> Compiling PEF" in line:
            events += self._enter(ts, "compiling", "SambaTune compiles the PEF")
        elif "Compilation was finished" in line:
            events += self._enter(ts, "running", "SambaTune's instrumented runs")
        return events

    def skipped(self, ts: float) -> list[Event]:
        return self._flush(ts)

    def finish(self, ts: float) -> list[Event]:
        return self._flush(ts)

    @classmethod
    def sniff(cls, text: str) -> bool:
        return bool(_SNIFF.search(text))
