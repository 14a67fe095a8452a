"""Print the lines of real logs again, as the program that wrote them did, a little at a
time: ``python replay_lines.py SECONDS FILE...`` prints each file's lines but its first (the
fixture's ``# source:`` line), flushed, with SECONDS between them."""

import sys
import time

pause = float(sys.argv[1])
for path in sys.argv[2:]:
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines()[1:]:
            print(line, flush=True)
            time.sleep(pause)
