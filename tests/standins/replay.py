#!/usr/bin/env python3
"""Stand-in for a vendor program: replays recorded output lines, a little apart.

    replay.py RECORDING [--delay S] [-- ARGS...]   (ARGS are recorded in argv.json)

It writes the argv it was called with to ./argv.json, so tests can check the
exact command line a recipe produced, then prints the recording line by line.
"""

import json
import sys
import time
from pathlib import Path

recording, *rest = sys.argv[1:]
delay = 0.01
if rest[:1] == ["--delay"]:
    delay, rest = float(rest[1]), rest[2:]
if rest[:1] == ["--"]:
    rest = rest[1:]
Path("argv.json").write_text(json.dumps({"argv": sys.argv, "args": rest}))
for line in Path(recording).read_text().splitlines():
    print(line, flush=True)
    time.sleep(delay)
