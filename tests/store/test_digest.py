"""An ended run's digest (digest.json): ``show`` and ``compare --plot`` read it instead of
the run's logs, and print the same as from the logs."""

import shlex

from tests.helpers import FIXTURES, accelbench, json_events


def _ended_runs() -> list[str]:
    """A run imported from a recorded log (a loss curve), and a failed one (a diagnosis
    with a hint, log lines from stdout and stderr)."""
    out = accelbench("import", str(FIXTURES / "recordings" / "cerebras_bert_large_batch2048.log"))
    assert out.returncode == 0, out.stderr
    imported = out.stdout.split()[0]
    code = "import sys; print('first'); print('boom', file=sys.stderr); sys.exit(3)"
    out = accelbench("run", "cpu-mnist", "--set", "workload=command", "--set",
                     f"command=python3 -c {shlex.quote(code)}", "--json")
    return [imported, json_events(out.stdout)[0]["run_id"]]


def test_show_and_compare_read_an_ended_runs_digest_not_its_logs(home):
    ids = _ended_runs()
    dirs = [home / "runs" / run_id for run_id in ids]
    shown = {run_id: accelbench("show", run_id).stdout for run_id in ids}
    plots = accelbench("compare", *ids, "--plot").stdout
    assert "job_failed" in shown[ids[1]] and "hint:" in shown[ids[1]]
    assert "first" in shown[ids[1]] and "boom" in shown[ids[1]]
    assert "loss" in plots.split("throughput")[1]  # the imported run's loss curve
    for run_id, run_dir in zip(ids, dirs, strict=True):  # from the logs: the same
        (run_dir / "digest.json").unlink()
        assert accelbench("show", run_id).stdout == shown[run_id]
        assert (run_dir / "digest.json").exists()  # kept again by that reading
    for run_dir in dirs:
        (run_dir / "digest.json").unlink()
    assert accelbench("compare", *ids, "--plot").stdout == plots
    for run_dir in dirs:  # the logs emptied: the digest says it all, no log is read
        assert (run_dir / "digest.json").exists()
        for name in ("output.log", "stderr.log"):
            (run_dir / name).write_text("")
    assert [accelbench("show", run_id).stdout for run_id in ids] == list(shown.values())
    assert accelbench("compare", *ids, "--plot").stdout == plots
    (dirs[1] / "digest.json").unlink()  # without it, the emptied logs do show
    assert accelbench("show", ids[1]).stdout != shown[ids[1]]
