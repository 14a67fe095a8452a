"""Reading what runs leave behind: structured files (TensorBoard event files, the HF
Trainer's ``trainer_state.json``, Lightning's ``metrics.csv``, LLaMA-Factory's
``trainer_log.jsonl``), log formats no system owns (MLPerf's ``:::MLLOG`` lines), and
the output of the tools around a run (``reading.tools``: job records read whole, the one
place that recognises a file of tool output by its shape)."""
