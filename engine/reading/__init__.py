"""Reading the world's output by its shapes, with no dialect written for a format.

``numbers`` finds the named numbers and ``N/M`` counters of one line, ``vocabulary`` maps
their names onto the canonical figures; the block reader (``shapes``) builds on both.
``failures`` holds the failure signatures read on every log. Also what runs leave behind:
structured files (TensorBoard event files, the HF Trainer's ``trainer_state.json``,
Lightning's ``metrics.csv``, LLaMA-Factory's ``trainer_log.jsonl``), log formats no system
owns (MLPerf's ``:::MLLOG`` lines), and the output of the tools around a run
(``reading.tools``: job records read whole, the one place that recognises a file of tool
output by its shape).
"""
