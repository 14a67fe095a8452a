"""Reading what people already have: logs and the output of the tools around a run.

``reading.tools`` holds the readers of tool output (tables, reports, job records) and
the one place that recognises a file of tool output by its shape.
"""
