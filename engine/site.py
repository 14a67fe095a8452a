"""Moved to ``accelbench.engine.config.site``; this path is kept for one release
(a plug-in written before ``accelbench.api`` imports it)."""

from accelbench.engine.core.moved import moved

moved(__name__, "accelbench.engine.config.site")
