"""The ground floor: the typed events and their batches, parameters, summaries, the one
error type, the output gate for outside text, and bounded, safe file reading. Imports
nothing else of accelbench."""
