"""Moved to ``accelbench.engine.run.experiment``; this path is kept for one release
(the driver of an experiment started before the upgrade runs as
``python -m accelbench.engine.experiment DIR HOME``)."""

from accelbench.engine.core.moved import moved

moved(__name__, "accelbench.engine.run.experiment")
