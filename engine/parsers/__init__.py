"""Log dialects: turning lines of a job's output into events."""
