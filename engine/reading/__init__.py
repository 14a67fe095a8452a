"""Reading what runs leave behind, with no dialect written for a format.

``numbers`` finds the named numbers and ``N/M`` counters of one line, ``vocabulary`` maps
their names onto the canonical figures, ``shapes`` reads any log's step lines by their
shape on both. Structured files (TensorBoard event files, the HF Trainer's
``trainer_state.json``, Lightning's ``metrics.csv``, LLaMA-Factory's ``trainer_log.jsonl``),
log formats no system owns (MLPerf's ``:::MLLOG`` lines), and the output of the tools
around a run (``reading.tools``: job records read whole, the one place that recognises a
file of tool output by its shape).
"""
