"""Running and following: start a run or open one (``runner``: its events derived from
its files), the state they fold into (``state``) and the digest kept when it ends
(``digest``), the reader thread that steps every followed run (``reader``), following
(``follow``), experiments (``experiment``), ``accelbench top`` (``top``) and ``accelbench
doctor`` (``doctor``)."""
