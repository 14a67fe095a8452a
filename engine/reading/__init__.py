"""Reading any log, with no dialect written for it: the generic reader's named numbers
and line shapes, failure signatures (``failures``) and tool-output readers."""
