"""Reading a log people already have: ``accelbench parse`` against a bare regex loop, per format.

One round per format with a real fixture (``ROUNDS``): its log is built from that fixture
as it is: its step lines (those the format's step pattern finds) repeated in turn to
``--lines`` lines, their step counting on from the fixture's last (by its own interval) and
every ``YYYY-MM-DD HH:MM:SS`` stamp in any line counting on a second per step line; between
them, the fixture's other lines in turn (but those the format's dialect reads as its run's
end, and the ``# source`` line), nine to a step line, so that step lines are a tenth of
the log ("1/10"; a fixture with no other lines gives no such log); last, the fixture's
lines after its last step line (its end: what ends its run, what detects some dialects).
A second log of each format is step lines only but that end ("all").

Each log is read, each in its own process and best of ``--repeat`` interleaved rounds, by:
a bare Python loop that reads the file and searches each line with the format's step
pattern (the baseline); ``accelbench parse FILE`` (its table, to /dev/null: the target);
``parse FILE --json`` (every event as a JSON line) and ``import FILE`` (which writes the run
and derives it as the store does). Each row gives CPU seconds (user + system: what to
compare on a machine others load), wall seconds, the child's peak memory (maxrss) and its
speed against the bare loop's (CPU). The children run as an installed package does, with
their bytecode cached: each command runs once on a small log first.

The target (issue 21 item 5): plain ``parse`` at >= 0.25x the bare loop's speed on every
"1/10" log and >= 0.1x on every "all" log, in <= 64 MB.

    python bench/parse_speed.py [--lines 1000000] [--only FORMAT] [--repeat 1] [--parse-only]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import cycle
from pathlib import Path

from accelbench.engine.core.events import Metric
from accelbench.engine.plugin import registry

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"


@dataclass(frozen=True)
class Round:
    """A format: its fixture, the dialect that reads it (None: the generic reader), its
    step line's pattern (group 1:
    the step, where the line has one; a bar's or an epoch's counter is left as printed)."""

    name: str
    fixture: str
    dialect: str | None
    step: str


ROUNDS = [
    Round("cerebras_2024", "real/cerebras/csx_r24_vit.log", "cerebras",
          r"\| Train Device=[^,]+, Step=(\d+), Loss="),
    Round("cerebras_2025", "real/cerebras/csx_r25_llama2_7b.log", "cerebras",
          r"\| Train Device=[^,]+, Step=(\d+), Loss="),
    Round("nxd_steps", "real/trainium/nxd_llama3_70b_auto_resume_awsome.log", "nxd_training",
          r"\bstep (\d+) step_time "),
    Round("sambanova_mlperf", "real/sambanova/bert_large_min_throughput_assertion.log",
          "sambanova", r"\|global_step:(\d+)\|average_loss:"),
    Round("hf_trainer", "real/trainium/optimum_tinyllama_npc_nan.log", "hf_trainer",
          r"\{'loss': "),
    Round("keras", "real/generic/keras_16906.txt", "keras", r"^\d+/\d+ \[=*>?\.*\] - "),
    Round("tqdm", "real/generic/tqdm_lightning_4225.txt", "tqdm", r"\d+/\d+ \[[\d:]+<[\d:?]+, "),
    # formats no dialect reads: the generic reader's (engine/reading/shapes.py)
    Round("nanogpt", "real/frameworks/nanogpt_shakespeare_char_v100.log", None,
          r"^iter (\d+): loss "),
    Round("megatron_lm", "real/frameworks/megatron_llm_epfl_issue11.log", None,
          r"^ iteration\s+(\d+)/"),
    Round("torchtitan", "real/frameworks/torchtitan_dcp_zoc_pr1287.log", None,
          r" - step: (\d+)  loss: "),
    Round("megatron_deepspeed",
          "real/frameworks/megatron_deepspeed_bigscience_grad_norm_nan_issue396.log", None,
          r"^ iteration\s+(\d+)/"),
    Round("deepspeed", "real/frameworks/deepspeed_bert_squad_cscs.log", None,
          r"\] step=(\d+), skipped="),
    Round("mmengine", "real/frameworks/mmengine_logger_hook_pr155.log", None,
          r" - Epoch\(train\) \[\d+\]\[(\d+)/"),
    Round("detectron2", "real/frameworks/detectron2_mask_rcnn_issue3363.log", None,
          r"\]:  eta: \S+  iter: (\d+)  "),
    Round("detr", "real/frameworks/detr_metric_logger_pix2seq_issue14.log", None,
          r"^Epoch: \[\d+\]  \[\s*(\d+)/"),
    Round("timm", "real/frameworks/timm_swin_tiny_scratch_notes.log", None,
          r"^Train: \d+ \[\s*(\d+)/"),
    Round("fairseq", "real/frameworks/fairseq_transformer_issue514.log", None,
          r"^\| epoch \d+:\s+(\d+) / "),
    Round("torchtune", "real/frameworks/torchtune_codellama_steps_pr1358.log", None,
          r"^Step (\d+) \| loss:"),
    Round("maxtext", "real/frameworks/maxtext_v3_8_issue8.log", None,
          r"^completed step: (\d+), seconds: "),
    Round("picotron", "real/frameworks/picotron_smollm_ec2.log", None,
          r"\] Step: (\d+)\s+\| Loss: "),
    Round("litgpt", "real/frameworks/litgpt_gpt2_reproduction_issue1607.log", None,
          r"^Epoch \d+ \| iter (\d+) step \d+ \| loss train: "),
]

BARE = """
import re, sys
rx = re.compile(sys.argv[2])
n = 0
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    for line in f:
        if rx.search(line):
            n += 1
print(n)
"""

_STAMP = re.compile(r"\d{4}-\d\d-\d\d([ T])\d\d:\d\d:\d\d")
T0 = time.mktime((2024, 3, 30, 13, 0, 0, 0, 0, -1))


def _ends_run(dialect: str | None, line: str) -> bool:
    """Whether the format's dialect reads ``line`` as (part of) its run's end."""
    if dialect is None:
        return False
    cls = registry.get_dialect(dialect)
    ends = cls.run_end | cls.success
    return any(type(event) is Metric and event.name in ends
               for event in cls("bench").feed(line, 0.0))


def _parts(round_: Round) -> tuple[list[str], list[str], list[str]]:
    """The step lines of the fixture of ``round_``, its other lines (but its run's end),
    and its lines after its last step line."""
    text = (FIXTURES / round_.fixture).read_text(encoding="utf-8").splitlines()
    lines = [line for line in text if not line.startswith("# source:")]
    step = re.compile(round_.step)
    at = [i for i, line in enumerate(lines) if step.search(line)]
    if not at:
        sys.exit(f"{round_.fixture}: no line matches {round_.step}")
    others = [line for line in lines
              if not step.search(line) and not _ends_run(round_.dialect, line)]
    return [lines[i] for i in at], others, lines[at[-1] + 1:]


def _lines(round_: Round, every: bool, count: int) -> Iterator[str]:
    """The ``count`` lines of the log of ``round_`` (see the module's docstring)."""
    step = re.compile(round_.step)
    steps, others, ending = _parts(round_)
    numbers = [int(m[1]) for m in map(step.search, steps) if m.groups() and m[1]]
    interval = max(1, numbers[1] - numbers[0]) if len(numbers) > 1 else 1
    last = numbers[-1] if numbers else 0
    other = cycle(others) if others and not every else None
    seconds, left = 0, count - len(ending)
    for n, printed in enumerate(cycle(steps), 1):
        if other is not None:
            for _ in range(min(9, left)):
                yield _stamped(next(other), seconds)
            left -= 9
        if left <= 0:
            break
        m = step.search(printed)
        line = printed if m is None or not m.groups() or m[1] is None else (
            f"{printed[:m.start(1)]}{last + n * interval}{printed[m.end(1):]}")
        seconds += 1
        left -= 1
        yield _stamped(line, seconds)
    for line in ending:
        yield _stamped(line, seconds + 1)


def _stamped(line: str, seconds: int) -> str:
    """``line`` with its stamps at ``T0`` + ``seconds``."""
    if "-" not in line:
        return line
    return _STAMP.sub(lambda m: time.strftime(f"%Y-%m-%d{m[1]}%H:%M:%S",
                                              time.localtime(T0 + seconds)), line)


def make_log(path: Path, round_: Round, every: bool, lines: int) -> int:
    """Write ``lines`` lines of the log of ``round_``; the number of its step lines."""
    step = re.compile(round_.step)
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for line in _lines(round_, every, lines):
            f.write(line + "\n")
            n += bool(step.search(line))
    return n


def measure(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """CPU seconds (user + system), wall seconds and peak memory (MB) of a child process
    running ``argv``."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    if status:
        sys.exit(f"{argv[2:]} failed: status {status}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def commands(log: Path, pattern: str, parse_only: bool = False) -> dict[str, list[str]]:
    cli = [sys.executable, "-m", "accelbench.cli.main"]
    return {"bare regex loop": [sys.executable, "-c", BARE, str(log), pattern],
            "accelbench parse": [*cli, "parse", str(log)],
            **({} if parse_only else {"parse --json": [*cli, "parse", str(log), "--json"],
                                      "import": [*cli, "import", str(log)]})}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--only", choices=[r.name for r in ROUNDS], action="append",
                        help="this format only (may be given again)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds; each command's of least CPU is shown")
    parser.add_argument("--parse-only", action="store_true",
                        help="the bare loop and plain parse only (not --json, not import)")
    args = parser.parse_args()
    env = {key: value for key, value in os.environ.items()
           if key != "PYTHONDONTWRITEBYTECODE"}  # an installed package's bytecode is cached
    ratios: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp, "warm.log")
        make_log(warm, ROUNDS[0], False, 1000)
        for argv in commands(warm, ROUNDS[0].step).values():  # the bytecode is written
            measure(argv, {**env, "ACCELBENCH_HOME": str(Path(tmp, "warm-up"))})
        print(f"{args.lines:,} lines a log; best of {args.repeat}; CPU s, wall s, peak MB,"
              " speed against the bare loop's (CPU)")
        for round_ in ROUNDS:
            if args.only and round_.name not in args.only:
                continue
            # (a fixture of step lines only gives an "all" log alone)
            for every in (False, True) if _parts(round_)[1] else (True,):
                shape = "all" if every else "1/10"
                log = Path(tmp, f"{round_.name}.log")
                steps = make_log(log, round_, every, args.lines)
                best: dict[str, tuple[float, float, float]] = {}
                for n in range(args.repeat):
                    home = {**env, "ACCELBENCH_HOME": str(Path(tmp, f"{log.stem}-{shape}{n}"))}
                    for name, argv in commands(log, round_.step, args.parse_only).items():
                        figures = measure(argv, home)
                        best[name] = min(best.get(name, figures), figures)
                size = log.stat().st_size / 2**20
                print(f"\n{round_.name} ({round_.fixture}), {shape}: {size:.0f} MB,"
                      f" {steps:,} step lines")
                bare = best["bare regex loop"][0]
                for name, (cpu, wall, memory) in best.items():
                    ratio = "" if name.startswith("bare") else f"  {bare / cpu:5.2f}x"
                    print(f"  {name + ':':18} {cpu:6.2f} s {wall:6.2f} s {memory:5.0f} MB{ratio}")
                ratios[f"{round_.name} {shape}"] = bare / best["accelbench parse"][0]
                log.unlink()
    if ratios:
        slowest = min(ratios, key=ratios.__getitem__)
        print(f"\nslowest for plain parse: {slowest} at {ratios[slowest]:.2f}x"
              " (target: >= 0.25x on 1/10, >= 0.1x on all, <= 64 MB)")


if __name__ == "__main__":
    main()
