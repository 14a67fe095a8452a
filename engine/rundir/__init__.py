"""A run's directory: the files the job's side and the readers write and read there."""
