"""The named numbers and ``N/M`` counters of one line of a program's output.

A number is read only with a name next to it, in each form the world prints one:
``key: value``, ``key=value``, ``key value`` (``iter 100: loss 4.2``; a key of one or two
words, the value ending a field), Megatron's ``| lm loss: 1.117761E+01 |`` fields, Python
dict reprs and JSON objects (``{'loss': 0.69, 'learning_rate': '4.9e-05'}``; nested objects
give ``outer/inner`` keys), tqdm postfixes (``[..., loss=0.123, v_num=1]``), rows of rich
tables (Lightning's test metrics: ``│ test_acc │ 0.797 │``, the first column's value), counts
set apart from their word (``Epoch [1][``, ``Epoch[0] Batch [3000]``, ESPnet's
``5epoch:train:5251-5625batch:``: its epoch), fields of a number and its unit only (timm's
``,  798.85/s``, OpenNMT's ``;  15842 sec``, ``9861 s elapsed``). A line led by a word that
says it evaluates (``Test: [  30/30]  Loss:   1.462 ( 1.867)``) gives its keys under that
word (``Test/Loss``), each the running average in parentheses after its value where there
is one. Units glued or spaced (``123.4ms``, ``12.3 GiB``, ``35.2%``, ``TFLOP/s``) or in the
key's parentheses (``elapsed time per iteration (ms)``), thousands separators (``12,345``),
exponents, signs, ``nan`` and ``inf`` (given as such: the caller decides) are read. Dates, times of
day, IPs, ``host:port``, versions, ``file.py:123``, hex and numbers glued to words
(``rank3``, ``bf16``) never are, nor a tqdm bar's percentage (``45%|███``), nor the numbers
of ids, ranks, ports (``vocabulary.not_a_figure``) nor those after a word of prose (``lr to
0.001``); a value set off by blanks only is named by a key that begins a field (``iter 100:
loss 4.2``, not ``Deprecated in NumPy 1.20;``).

A line costs a few precompiled regular expressions. Keys come in too many shapes to be
found fast from their start, so the places a value follows a separator are found first
(``: 1.2``, ``=1.2``, `` 1.2``), and each one's key is matched from there backwards, on the
reversed line. Every ``Named`` and ``Counter`` carries the span of its number, so that a
reader of line templates can map a template's number slots to keys.

A table's rows name their numbers by a line before them: ``columns(header)`` reads a header
line of names, ``table_row(names, header, row)`` a row's numbers under them.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from accelbench.engine.core.patterns import lazy
from accelbench.engine.reading.vocabulary import (
    EVALUATES,
    PROSE,
    Canon,
    canonical,
    key_unit,
    metric_name,
    not_a_figure,
)


class Named(NamedTuple):
    """A number with its key, as printed; ``line[start:end]`` is the number's text and
    ``value`` its value. A multiple's letter (``11.5K``, ``85.8G``) is the unit: the value
    stays 11.5 (``vocabulary.canonical`` scales it, and reads ``3961M`` of a memory as MiB;
    ``vocabulary.MULTIPLES`` has the letters)."""

    key: str
    value: float
    unit: str
    start: int
    end: int


class Counter(NamedTuple):
    """An ``n/total`` place: what is counted (``step`` or ``epoch``), and the spans of the
    two numbers' texts."""

    what: str
    n: int
    total: int
    start: int
    end: int
    total_start: int
    total_end: int


_UNIT = (r"%|[KMGTkmgt]i?B(?:/s)?|[kmgt]b|B"
         r"|[GTPgtp]FLOP(?:[Ss]|/s)?(?:/GPU|/gpu|/device)?"
         r"|(?:samples?|tokens?|toks?|it|imgs?|images?|seqs?)/s(?:ec)?|samples?_per_sec(?:ond)?"
         r"|s/it|m?s/(?:step|it|iter|batch)"
         r"|ns|us|µs|ms|secs?|seconds|s|mins?|minutes|hrs?|hours|h|/s")
# what ends a value set off by blanks: a delimiter, two blanks, " - ", the line's end, or
# another key and its value ("step 1 step_time 433.97s throughput 2.32 seq/s loss 1.68 grad
# norm 0.31", "loss nan val-loss: None")
_FIELD_END = lazy(r"[ \t]*(?:[,|;:)\]}]|$)|[ \t]{2}|[ \t]-[ \t]"
                  r"|[ \t]+[^\W\d][\w@./\-]*(?: [^\W\d][\w@./\-]*)?"
                  r"(?:[ \t]+(?:[-+]?\.?\d|nan|inf)|[ \t]*[:=])")
# a value and what precedes it up to its key: ": 1.2", " = '4.9e-05'", "=[5e-05,", "  1.2,",
# then its unit: "12.3GiB", "4.1 ms", "0.00 (sec)", or a multiple ("11.5K", "85.8G", "3961M")
# (possessive: a run of blanks or digits is never tried again from inside)
_VALUE = lazy(
    r"(?P<sep>[ \t:=│][ \t:=│]*+)(?P<q>['\"])?(?P<lb>\[)?"
    r"(?P<num>[-+]?(?:(?:\d{1,3}(?:,\d{3})++(?!\d)|\d++)(?:\.\d++)?|\.\d++)(?:[eE][-+]?\d++)?"
    r"|[-+]?(?i:nan|inf(?:inity)?))"
    rf"(?:[ \t]?(?P<unit>{_UNIT})|[ \t]\((?P<punit>{_UNIT})\)|(?P<si>[kKMGT])(?!\w))?"
    r"(?![\w%]|\.\d|[:\-,/]\d|[ \t]*/[ \t]*\d)"  # not a date, a time, an IP, a version, N/M
    r"(?(q)(?P=q))(?(lb)(?=[,\]]))")
_CAMEL_IDS = ("Id", "Ids", "ID", "IDs")  # a key's id in camelCase (``processId``): no figure
# a number whose unit names it, where no key does: "(57.126 sec/step)", "3599 src tok/s",
# "7.6092 Tflops", detectron2's "(2.8448 s / it)" (a tqdm bar's "it/s" names no figure: bars
# are their dialect's)
_NAMED_BY_UNIT = lazy(
    r"(?<![\w.:/\-])(?P<num>(?:\d{1,3}(?:,\d{3})++(?!\d)|\d++)(?:\.\d++)?(?:[eE][-+]?\d++)?)"
    r"[ \t]?(?P<name>(?:(?:src|tgt)[ \t])?(?:tok|tokens|samples?|seqs?|sequences?|images?|imgs?)"
    r"/s(?:ec)?|[TGP](?:FLOP/s|FLOPS|FLOPs|flops)|m?s(?:ec)?/step|m?s / it)(?![\w/])")
# a field that is a number and its unit only, after a delimiter: a count a second (timm's
# "Time: 0.160s,  798.85/s  (0.148s,  863.22/s)": not the average in parentheses) or a time
# (OpenNMT's "; 15842 sec", "; 10233 s elapsed")
_UNIT_FIELD = lazy(
    r"[,;|][ \t]+(?P<num>\d+(?:\.\d+)?)(?:(?P<rate>/s)|[ \t]?(?P<time>s|secs?|seconds)"
    r"(?:[ \t]+(?P<what>elapsed))?)(?=[ \t]*(?:[,;|(]|$))")
# the date and time Python's logging puts first ("2019-02-19 18:37:12,571 DEV  : loss ...")
_LOGGED_AT = r"(?:\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d+)?[ \t]+)?"
# a line whose leading word (after its logged date, if any) says it evaluates ("Test: [  30/30]
# Loss: ...", "Valid Summary | ...", "Test Accuracy: 90.07 Loss: 0.3361"): its keys are that
# word's
_EVAL_LEAD = lazy(rf"{_LOGGED_AT}[ \t|]*(?P<lead>(?i:{'|'.join(EVALUATES)}))(?![\w-])")
_EVAL_INITIALS = "".join({c for word in EVALUATES for c in (word[0], word[0].upper())})
# a value's running average after it, in parentheses: "Loss:   1.462 ( 1.867)" (timm's and
# torchvision's AverageMeter), which an evaluation's line gives as its result so far
_AVERAGE = lazy(r"[ \t]*\([ \t]*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)[ \t]*\)")
# the number of what is counted where it is set apart from its word rather than by a separator:
# in brackets after it (mmcv's "Epoch [1][2600/7517]", mmengine's "Epoch(train) [1][80/90]",
# sockeye's "Epoch[0] Batch [3000]"), or glued before it as a field's key (ESPnet's
# "5epoch:train:5251-5625batch:"; not a range's end: a template's slot holds the whole range)
_BRACKETED = lazy(r"\[[ \t]*(\d+)\]")
_COUNTING = ("epoch", "iter", "iteration", "step", "batch")
_COUNTED_BEFORE = lazy(rf"(?i:\b({'|'.join(_COUNTING)}))(?:\(\w+\))?[ \t]*$")
_GLUED = lazy(r"(?<![\w.\-])(\d+)(epoch|batch):")
# clu's metric writers (Flax's examples): the step in brackets leading the message, before its
# "key=value" pairs ("logging_writer.py:35] [1000] steps_per_second=1.76, train_loss=6.52")
_STEP_LEADS = lazy(r"(?:^|\] )\[(\d+)\] (?=[^\W\d][\w/.\-]*=)")
# a key, reversed, as it ends where its value's separator begins: 'key' or "key" quoted, or
# up to 8 words (a letter first, no ".-/" last) and a unit in parentheses after them
_WORD_REVERSED = r"(?:[\w@][\w@.\-/]*)?[^\W\d](?![\w@.\-/])"
_KEY_REVERSED = lazy(
    r"(?P<q>['\"])(?P<quoted>[^'\"\n]{1,80})(?P=q)"
    rf"|(?P<paren>\)[^()\n]{{1,32}}\( ?)?(?P<words>{_WORD_REVERSED}(?: {_WORD_REVERSED}){{0,7}})")
# (reversed) a count of a total before a ratio's "=", after its key's ":" (NCRF++'s
# "acc: 141830/170170=0.8335")
_RATIO_REVERSED = lazy(r"\d+/\d+[ \t]*:[ \t]*")
_FIELD_BREAK = frozenset("|,;:[]{}\t\r>")  # a key of several words begins after one of these
# ... or after one of these and a blank: a ":", a "-", a ")", a number, another blank
_FIELD_GAP = _FIELD_BREAK | frozenset(": -)0123456789")
_LEADING = PROSE | {"none", "null", "true", "false"}  # not the first word of a key
# "time (ms) | forward: 652.41 | backward: ..." (Megatron, DeepSpeed): the unit of the fields after
_UNIT_HEADER = lazy(rf"\(({_UNIT})\)\s*\|")
_HOST_OR_FILE = lazy(r"[.\d]|^localhost$", re.IGNORECASE)  # a key glued to its number
_DELIMITERS = (",", ";", ":", "|")  # what ends a field right after its value
_NOT_EQUALS = ("=", "!", "<", ">")  # before "=": "==", "!=", "<=", ">=" compare, not name
_ANSI = lazy(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_OBJECT_KEY = lazy(r"(['\"])([^'\"\n]{1,80})\1\s*:\s*\{")
_BRACE = lazy(r"[{}]")
_EVALUATES = tuple(f"{word}_" for word in EVALUATES)
_COUNTS = {Canon("step", 1.0), Canon("epoch", 1.0), Canon("total_steps", 1.0)}


def named_numbers(line: str) -> list[Named]:
    """The named numbers of ``line``, in order."""
    if "\x1b" in line:  # colours: blanked, so that spans stay the line's
        line = _ANSI.sub(lambda m: " " * len(m[0]), line)
    size, reversed_line = len(line), line[::-1]
    scopes = _scopes(line) if line.count("{") > 1 else []
    header = _UNIT_HEADER.search(line)
    row = line.strip()
    table_row = row[:1] == "│" == row[-1:]  # a rich table's row: its values are its cells
    found: list[Named] = []
    value_end = -1  # where the named value before ends: a key right after it begins a field
    for m in _VALUE.finditer(line):
        sep_text, quote, bracket, number, unit, punit, si = m.group(
            "sep", "q", "lb", "num", "unit", "punit", "si")
        value = float(number.replace(",", ""))
        sep, (start, end) = m.start(), m.span("num")
        mark = sep_text.strip()
        if mark == "│":  # a row of a rich table: "│ test_acc │ 0.797 │" (its first column)
            key = line[line.rfind("│", 0, sep) + 1:sep].strip()
            if (key[:1].isalpha() and "│" in line[:sep] and not not_a_figure(metric_name(key))
                    and not key.endswith(_CAMEL_IDS)):
                found.append(Named(key, value, unit or si or "", start, end))
                value_end = m.end()
            continue
        if table_row or not (mark == ":" or (mark == "=" and line[sep - 1:sep] not in _NOT_EQUALS)
                or (not mark and not quote and not bracket and _FIELD_END.match(line, m.end()))):
            continue  # "==", "<=", "::", or a value set off by spaces that ends no field
        at = size - sep
        if mark == "=" and (ratio := _RATIO_REVERSED.match(reversed_line, at)):
            at = ratio.end()  # "acc: 141830/170170=0.8335": the key of the count and ratio
        k = _KEY_REVERSED.match(reversed_line, at)
        if k is None:
            continue
        quoted, words, paren = k.group("quoted", "words", "paren")
        if quoted:
            key = quoted[::-1]
            if scopes:
                key = "/".join([name for s, e, name in scopes if s < sep < e] + [key])
        else:
            blanks = "" if mark else sep_text
            if len(blanks) > 1 and line[m.end():m.end() + 1] in _DELIMITERS:
                blanks = " "  # "Epoch  1, 12900/37527;": blanks that pad, not a column's
            key = _key(line, size - k.end(), words[::-1], paren, blanks, value_end)
            if not key or (sep_text == ":" and (_HOST_OR_FILE.search(key) or (
                    line[m.end():m.end() + 1] in ")]"
                    and line[size - k.end() - 1:size - k.end()] in "(["))):
                continue  # no field's key, or file.py:123, host:port, (trainer:486)
            if key[key.rfind(" ") + 1:].lower() in PROSE:
                continue
        if (not_a_figure(metric_name(key)) or key.endswith(_CAMEL_IDS)
                or (unit == "%" and line.startswith("|", m.end()))):
            continue  # an id, a rank, ...; a tqdm bar's "45%|"
        unit = unit or punit or si or key_unit(key)[1] or (
            header[1] if header and sep > header.start() else "")
        found.append(Named(key, value, unit, start, end))
        value_end = m.end()
    glued = "h:" in line and ("epoch:" in line or "batch:" in line)
    if glued or "]" in line:
        found = _counted(line, found, glued)
    if "/s" in line or "lops" in line or "LOP" in line or " / it" in line:
        named = {n.start for n in found}
        found += [Named(u["name"], float(u["num"].replace(",", "")), "", u.start(), u.end("num"))
                  for u in _NAMED_BY_UNIT.finditer(line) if u.start() not in named]
        found.sort(key=lambda n: n.start)
    if "/s" in line or "sec" in line or "s elapsed" in line or " s;" in line:
        named = {n.start for n in found}
        found += [Named(u["what"] or u["time"] or "", float(u["num"]), u["rate"] or u["time"],
                        *u.span("num"))
                  for u in _UNIT_FIELD.finditer(line) if u.start("num") not in named]
        found.sort(key=lambda n: n.start)
    if found and (line.lstrip(" \t|")[:1] in _EVAL_INITIALS or line[4:5] == "-" == line[7:8]) and (
            lead := _EVAL_LEAD.match(line)):  # (a word that evaluates first, or a date)
        found = [_evaluated(line, n, lead["lead"]) for n in found]
    return found


def _counted(line: str, found: list[Named], glued: bool) -> list[Named]:
    """``found`` and the counts of ``line`` set apart from their word (``Epoch [1]``; and
    where ``glued``, ``5epoch:``) or leading its ``key=value`` pairs in brackets (``[1000]
    steps_per_second=``: a step), in order."""
    named = {n.start for n in found}
    counts = [Named(c[1], float(number), "", at, at + len(number))
              for b in _BRACKETED.finditer(line)
              if (c := _COUNTED_BEFORE.search(line, max(0, b.start() - 24), b.start()))
              and (at := b.start(1)) not in named and (number := b[1])]
    if glued:
        counts += [Named(g[2], float(g[1]), "", *g.span(1)) for g in _GLUED.finditer(line)
                   if g.start(1) not in named]
    counts += [Named("step", float(c[1]), "", *c.span(1)) for c in _STEP_LEADS.finditer(line)
               if c.start(1) not in named]
    return sorted(found + counts, key=lambda n: n.start) if counts else found


def _evaluated(line: str, named: Named, lead: str) -> Named:
    """``named`` of a line that evaluates (its leading word ``lead``): its key is the lead's
    (``Test/Loss``), but a count's (``Epoch``) or one that already says so (``val_loss``);
    a running average after its value is the value (``Loss:   1.462 ( 1.867)``: 1.867)."""
    name = metric_name(named.key)
    if name in EVALUATES or name.startswith(_EVALUATES) or canonical(
            named.key, named.unit) in _COUNTS:
        return named
    key = f"{lead}/{named.key}" if named.key else named.key
    if average := _AVERAGE.match(line, named.end + len(named.unit)):
        return Named(key, float(average[1]), named.unit, *average.span(1))
    return named._replace(key=key)


def _key(line: str, start: int, words: str, paren: str | None, blanks: str, after: int
         ) -> str:
    """The key of the words before a value (``line[start:]`` begins with them): all of them
    where they begin a field (after ``|``, ``,``, ``: ``, ``] ``, two blanks, a number and a
    blank, the value before, ...) less any word of prose or a value (``None``) they begin
    with, else the last word. A value set off by ``blanks`` only is named by a field's key of
    one or two words (``iter 100``, ``train loss 1.54``; by more than one blank only after a
    ``|``: fairseq's ``| bsz    32 |``), else by none (``""``): a column of a table, prose."""
    if after > start:  # not the unit of the value before ("2.32 seq/s loss 1.68")
        cut = words.find(" ", after - start - 1) + 1
        if not cut:
            return ""
        words, start = words[cut:], start + cut
    before = line[start - 2:start] if start > 1 else " " + line[:start]
    field = start == 0 or before[1] in _FIELD_BREAK or (
        before[1] in " \t" and (before[0] in _FIELD_GAP or (
            after > 0 and not line[after:start].strip())))
    if not field or (blanks and words.count(" ") > 1):
        if blanks:
            return ""
        words = words[words.rfind(" ") + 1:]
    if blanks and len(blanks) > 1 and before != "| ":
        return ""
    while " " in words and words[:words.find(" ")].lower() in _LEADING:
        words = words[words.find(" ") + 1:]  # "step 0 of epoch 0,", "val-loss: None lr: 1"
    return words + paren[::-1] if paren else words


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


# the number after a "/", then (on the reversed line) the number before it and what precedes
# that: a word naming what is counted ("Epoch 2/10", "[batch=16/16]", "iteration 10/ 500"),
# an epoch and its number (the steps of that epoch: fairseq's "| epoch 001:    650 / 1891",
# OpenNMT's "Epoch  1, 13400/37527;"), a "[" ("[10/500]", "[  0/1251 (  0%)]", the notebook
# bar's "[ 22/290 02:50 < 38:04,"), or nothing
# (a tqdm bar's "10/500 [00:03<...")
_TOTAL = lazy(r"/[ \t]*(\d+)(?![\d.])")
_COUNT_REVERSED = lazy(
    r"(?P<sp>[ \t]*)(?P<n>\d+)(?!\d)"
    r"(?:[ \t]*\[?[ \t]*[:=#]?[ \t]*(?<!\d)"
    r"(?P<kw>(?i:s?pets(?:[ _]labolg)?|s?(?:noita)?reti|s?hcope|hctab))(?!\w)"
    r"|(?:[ \t]*[:,|][ \t]*|[ \t]+)\d+[ \t]*(?P<epoch>(?i:hcope))(?!\w)"
    r"|[ \t]*(?P<bracket>\[)|(?![\w./]))")
# after a bracketed counter's total: its end, a percentage's "(", or the elapsed and
# remaining times of transformers' notebook bar ("[ 22/290 02:50 < 38:04, 0.12 it/s, ...]")
_AFTER_BRACKETED = lazy(r"[ \t]*[\](]|[ \t]+[\d:]+[ \t]<[ \t][\d:]+[,\]]")
_AFTER_BAR = lazy(r" \[[\d:]+<")


def counters(line: str) -> list[Counter]:
    """The ``n/total`` counters of ``line``: after ``step``, ``iter``, ``iteration``,
    ``epoch`` or ``batch`` (``Epoch 2/10``, ``[batch=16/16]``), the steps of an epoch after
    its number (``epoch 001:    650 / 1891``), in brackets (``[10/500]``),
    or a tqdm bar's ``n/total [elapsed<remaining``; ``n`` at most ``total``."""
    if "/" not in line:
        return []
    size, reversed_line = len(line), line[::-1]
    found: list[Counter] = []
    for m in _TOTAL.finditer(line):
        c = _COUNT_REVERSED.match(reversed_line, size - m.start())
        if c is None or not (c["kw"] or c["epoch"] or (
                _AFTER_BRACKETED.match(line, m.end()) if c["bracket"]
                else not c["sp"] and m.start(1) == m.start() + 1
                and _AFTER_BAR.match(line, m.end()))):
            continue
        n, total = int(c["n"][::-1]), int(m[1])
        if total > 0 and n <= total:
            what = "epoch" if c["kw"] and c["kw"][::-1].lower().startswith("epoch") else "step"
            found.append(Counter(what, n, total, size - c.end("n"), size - c.start("n"),
                                 m.start(1), m.end(1)))
    return found


# A table printed as a header line of names, then rows of numbers in its columns (Ultralytics'
# epoch tables, fastai's results, the Trainer's model card): its cells are set apart by "|",
# by tabs, or by two blanks or more; a tqdm bar after a row or a header is no cell of it
# ("640: 100%|███| 16/16 [...", "mAP50-95): 100%|███|..."); a Markdown table's rule
# ("|:-----:|") comes between its header and its rows.
_PIPED_CELL = lazy(r"[^|]+")
_SPACED_CELL = lazy(r"[^ \t|]+(?: [^ \t|]+)*")
_BAR_TAIL = lazy(r":?[ \t]+\d{1,3}%\|")
_RULE = lazy(r"[ \t]*\|?[ \t]*:?-{3,}+:?(?:[ \t]*\|[ \t]*:?-{3,}+:?)*+[ \t]*\|?[ \t]*$")
_NUMBER_CELL = lazy(
    r"(?P<num>[-+]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?i:nan|inf))"
    rf"(?:/\d+)?(?P<unit>{_UNIT}|[kKMGT])?:?")
_NUMBER_WORD = lazy(r"[-+]?\d[\d.,:/]*\w?")


def _piped(header: str) -> bool:
    """Whether the cells of the table ``header`` heads are set apart by ``|`` (not a bar's)."""
    return header.count("|") >= 2 and not _BAR_TAIL.search(header, 0, header.find("|") + 1)


def _cells(line: str, piped: bool) -> list[tuple[int, int]]:
    """The spans of ``line``'s cells (stripped; a bar after them left out)."""
    bar = _BAR_TAIL.search(line)
    end = bar.start() if bar else len(line)
    if piped:
        return [(m.start() + len(m[0]) - len(m[0].lstrip()), m.end() - len(m[0]) + len(
            m[0].rstrip())) for m in _PIPED_CELL.finditer(line, 0, end) if m[0].strip()]
    return [m.span() for m in _SPACED_CELL.finditer(line, 0, end)]


def columns(header: str) -> list[str] | None:
    """The names of the columns of a table's header line (``      Epoch    GPU_mem
    box_loss ...``, ``epoch<TAB>train_loss<TAB>...``, ``| Training Loss | Epoch | Step |``);
    None where it is none: fewer than three names, or a cell that holds a number, a value
    (``:``, ``=``) or no letter first."""
    names = [header[a:b] for a, b in _cells(header, _piped(header))]
    if len(names) < 3 or any(
            not name[:1].isalpha() or "=" in name or ":" in name
            or any(_NUMBER_WORD.fullmatch(word) for word in name.split()) for name in names):
        return None
    return names


def table_row(names: list[str], header: str, line: str) -> list[Named] | None:
    """The named numbers of a row of the table ``header`` heads (its columns ``names``):
    each number cell named by its column (``70/1000`` under ``Epoch``: the epoch 70; ``6.73G``
    under ``GPU_mem``: 6.73 and its multiple); cells of text (a label, ``00:03``) are no
    figures. None where ``line`` is no row of it: another number of cells, fewer than two
    numbers, or (cells set apart by blanks) a cell not under its column's name."""
    piped = _piped(header)
    spans = _cells(line, piped)
    if len(spans) != len(names) or _RULE.match(line):
        return None
    if not piped and "\t" not in header and not all(
            a < name_end and name_start < b
            for (a, b), (name_start, name_end) in zip(spans, _cells(header, piped), strict=True)):
        return None
    found = []
    for name, (start, end) in zip(names, spans, strict=True):
        if (cell := _NUMBER_CELL.fullmatch(line, start, end)) is not None:
            found.append(Named(name, float(cell["num"]), cell["unit"] or "", *cell.span("num")))
    return found if len(found) >= 2 else None


def rule(line: str) -> bool:
    """Whether ``line`` is a Markdown table's rule (``|:----:|:---:|``)."""
    return _RULE.match(line) is not None
