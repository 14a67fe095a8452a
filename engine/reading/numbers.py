"""The named numbers and ``N/M`` counters of one line of a program's output.

A number is read only with a name next to it, in each form the world prints one:
``key: value``, ``key=value``, ``key value`` (``iter 100: loss 4.2``; a key of one or two
words, the value ending a field), Megatron's ``| lm loss: 1.117761E+01 |`` fields, Python
dict reprs and JSON objects (``{'loss': 0.69, 'learning_rate': '4.9e-05'}``; nested objects
give ``outer/inner`` keys), tqdm postfixes (``[..., loss=0.123, v_num=1]``). Units glued or
spaced (``123.4ms``, ``12.3 GiB``, ``35.2%``, ``TFLOP/s``) or in the key's parentheses
(``elapsed time per iteration (ms)``), thousands separators (``12,345``), exponents,
signs, ``nan`` and ``inf`` (given as such: the caller decides) are read. Dates, times of
day, IPs, ``host:port``, versions, ``file.py:123``, hex and numbers glued to words
(``rank3``, ``bf16``) never are, nor are the numbers of ``vocabulary.NOT_FIGURES`` names
(ranks, pids, ports, ...) nor those after a word of prose (``lr to 0.001``).

Each line costs a few precompiled regular expressions (one to find the named numbers, one
for counters); every ``Named`` and ``Counter`` carries the span of its number, so that a
reader of line templates can map a template's number slots to keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from accelbench.engine.reading.vocabulary import NOT_FIGURES, PROSE, key_unit, metric_name


@dataclass(frozen=True, slots=True)
class Named:
    """A number with its key, as printed; ``line[start:end]`` is the number's text."""

    key: str
    value: float
    unit: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Counter:
    """An ``n/total`` place: what is counted (``step`` or ``epoch``), and the spans of the
    two numbers' texts."""

    what: str
    n: int
    total: int
    start: int
    end: int
    total_start: int
    total_end: int


_UNIT = (r"%|[KMGTkmgt]i?B|[kmgt]b|B"
         r"|[GTPgtp]FLOP(?:[Ss]|/s)?(?:/GPU|/gpu|/device)?"
         r"|(?:samples?|tokens?|toks?|it|imgs?|images?|seqs?)/s(?:ec)?"
         r"|s/it|m?s/(?:step|it|iter|batch)"
         r"|ns|us|µs|ms|secs?|seconds|s|mins?|minutes|hrs?|hours|h|/s")
_WORD = r"[^\W\d][\w@.\-/]*(?<![.\-/])"  # a word of a key: a letter first
_PAREN = r"(?:\s?\([^()\n]{1,32}\))?"  # "(ms)", "(TFLOP/s/GPU)" ending a key
# where a key of several words may begin: the line's start, after a field's end
_FIELD_START = r"(?:^|(?<=[|,;\[\]{}\t\r>])|(?<=[|,;\[\]{}\t\r>:\-\s] ))"
_SEP = r"(?:\s*:\s*|\s*(?<![=!<>])=(?!=)\s*)"
_FIELD_END = r"(?=\s*(?:[,|;:)\]}]|$)|\s\s|\s-\s)"
_NAMED = re.compile(
    r"(?:(?P<qo>['\"])(?P<qkey>[^'\"\n]{1,80})(?P=qo)\s*:\s*(?P<qv>['\"])?"  # 'key': 'value'
    rf"|{_FIELD_START}(?P<mkey>{_WORD}(?: {_WORD}){{1,7}}{_PAREN}){_SEP}"  # lm loss: value
    rf"|{_FIELD_START}(?P<wkey>{_WORD} {_WORD})(?P<wsp> +)"  # train loss value
    rf"|(?<![\w@.\-/])(?P<key>{_WORD}{_PAREN})(?P<sep>{_SEP}|(?P<sp> +)))"  # key: value
    r"(?(sp)|(?(wsp)|(?P<lb>\[)?))"  # DeepSpeed's lr=[5e-05]: the first of a list
    r"(?P<num>[-+]?(?:(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?"
    r"|[-+]?(?i:nan|inf(?:inity)?))"
    rf"(?:\s?(?P<unit>{_UNIT})|\s\((?P<punit>{_UNIT})\))?"  # 12.3GiB, 4.1 ms, 0.00 (sec)
    r"(?![\w%]|\.\d|[:\-,/]\d|\s*/\s*\d)"  # not a date, a time, an IP, a version, N/M
    r"(?(qv)(?P=qv))(?(lb)(?=[,\]]))"
    rf"(?(wsp){_FIELD_END})(?(sp){_FIELD_END})")
# "time (ms) | forward: 652.41 | backward: ..." (Megatron, DeepSpeed): the unit of the fields after
_UNIT_HEADER = re.compile(rf"\(({_UNIT})\)\s*\|")
_HOST_OR_FILE = re.compile(r"[.\d]|^localhost$", re.IGNORECASE)  # a key glued to its number
_MAYBE = re.compile(r"\d|nan|inf", re.IGNORECASE)
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_OBJECT_KEY = re.compile(r"(['\"])([^'\"\n]{1,80})\1\s*:\s*\{")
_BRACE = re.compile(r"[{}]")
_COUNTER = re.compile(
    r"(?i:\b(?P<kw>global[ _]step|steps?|iter(?:ation)?s?|epochs?|batch))\b"
    r"\s*[:=#]?\s*\[?\s*(?P<n>\d+)\s*/\s*(?P<total>\d+)(?![\d.])"
    r"|\[\s*(?P<bn>\d+)\s*/\s*(?P<btotal>\d+)\s*(?=\]|\()"  # [10/500], [  0/1251 (  0%)]
    r"|(?<![\w./])(?P<tn>\d+)/(?P<ttotal>\d+) \[(?=[\d:]+<)")  # tqdm: 10/500 [00:03<...


def named_numbers(line: str) -> list[Named]:
    """The named numbers of ``line``, in order."""
    if not _MAYBE.search(line):
        return []
    if "\x1b" in line:  # colours: blanked, so that spans stay the line's
        line = _ANSI.sub(lambda m: " " * len(m[0]), line)
    scopes = _scopes(line) if line.count("{") > 1 else []
    header = _UNIT_HEADER.search(line)
    found: list[Named] = []
    for m in _NAMED.finditer(line):
        group = next(g for g in ("qkey", "mkey", "wkey", "key") if m[g])
        key = m[group]
        if group != "qkey" and line[m.end(group):m.start("num")] == ":" and (
                _HOST_OR_FILE.search(key)):
            continue  # file.py:123, host:port, node01:29500
        name = metric_name(key)
        if name in NOT_FIGURES or (name in PROSE and group != "qkey"):
            continue
        unit = m["unit"] or m["punit"] or key_unit(key)[1] or (
            header[1] if header and m.start() > header.start() else "")
        if scopes and m["qkey"]:
            start = m.start()
            key = "/".join([k for s, e, k in scopes if s < start < e] + [key])
        found.append(Named(key, float(m["num"].replace(",", "")), unit,
                           m.start("num"), m.end("num")))
    return found


def _scopes(line: str) -> list[tuple[int, int, str]]:
    """(start, end, key) of each object in ``line`` that is an entry's value, outer first."""
    opens = {m.end() - 1: m[2] for m in _OBJECT_KEY.finditer(line)}
    stack: list[tuple[int, str | None]] = []
    scopes: list[tuple[int, int, str]] = []
    for m in _BRACE.finditer(line):
        if m[0] == "{":
            stack.append((m.start(), opens.get(m.start())))
        elif stack:
            start, key = stack.pop()
            if key is not None:
                scopes.append((start, m.end(), key))
    return sorted(scopes)


def counters(line: str) -> list[Counter]:
    """The ``n/total`` counters of ``line``: after ``step``, ``iter``, ``iteration``,
    ``epoch`` or ``batch`` (``Epoch 2/10``, ``[batch=16/16]``), in brackets (``[10/500]``),
    or a tqdm bar's ``n/total [elapsed<remaining``; ``n`` at most ``total``."""
    found: list[Counter] = []
    for m in _COUNTER.finditer(line):
        group = "n" if m["n"] else "bn" if m["bn"] else "tn"
        total_group = {"n": "total", "bn": "btotal", "tn": "ttotal"}[group]
        n, total = int(m[group]), int(m[total_group])
        if total > 0 and n <= total:
            what = "epoch" if (m["kw"] or "").lower().startswith("epoch") else "step"
            found.append(Counter(what, n, total, m.start(group), m.end(group),
                                 m.start(total_group), m.end(total_group)))
    return found
