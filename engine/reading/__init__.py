"""Reading the world's output by its shapes, with no dialect written for a format.

``numbers`` finds the named numbers and ``N/M`` counters of one line, ``vocabulary`` maps
their names onto the canonical figures; the block reader builds on both.
"""
