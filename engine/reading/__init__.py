"""Reading what runs leave behind: structured files (TensorBoard event files, the HF
Trainer's ``trainer_state.json``, Lightning's ``metrics.csv``, LLaMA-Factory's
``trainer_log.jsonl``) and log formats no system owns (MLPerf's ``:::MLLOG`` lines)."""
