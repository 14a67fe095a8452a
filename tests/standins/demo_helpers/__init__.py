"""Stand-in for GroqFlow's ``demo_helpers``, for tests: ``compute_performance`` and
``dataset.create_dataset("sst")`` only."""
