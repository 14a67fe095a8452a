"""``accelbench top``: every system's node sampler against stand-in vendor tools replaying
real recorded output (tests/standins/top), with NVML absent (tests/standins/no_nvml);
the run using a device found through the store; the text view within the width."""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import io
import json
import os
import pty
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import termios
import threading
import time
from types import SimpleNamespace

import psutil
import pytest
from rich.console import Console

from accelbench.engine.run.top import FIELDS, LiveRuns, Sample, Top
from accelbench.engine.rundir.files import WRAPPER_FILE, read_json, write_json
from accelbench.engine.store.runs import Store
from accelbench.engine.systems.cuda.dialect import query_rows
from accelbench.engine.systems.cuda.node import smi_devices
from accelbench.engine.systems.ipu.node import GraphcoreNode
from accelbench.engine.systems.trainium.node import cores
from accelbench.engine.telemetry import node
from accelbench.engine.telemetry.host import cpu_devices
from accelbench.engine.telemetry.node import Device, Reading
from accelbench.engine.view import topview
from tests.helpers import ROOT, SPEC, accelbench
from tests.helpers import wait_for as holds_within

STANDINS = ROOT / "tests" / "standins"
NULLS = {"mem_used_mib": None, "mem_total_mib": None, "power_w": None, "temp_c": None}


@pytest.fixture
def vendor_tools(monkeypatch, home):
    """The stand-in vendor tools first on PATH, pynvml unimportable."""
    monkeypatch.setenv("PATH", f"{STANDINS / 'top'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTHONPATH", str(STANDINS / "no_nvml"))


def live_run(home, job_pid: int, host: str | None = None) -> str:
    """A run of the store that is running, its job (process group) ``job_pid``."""
    store = Store(home)
    info = store.create(SPEC)
    store.update(info.id, "running")
    write_json(info.path(WRAPPER_FILE), {"pid": job_pid, "host": host or socket.gethostname(),
                                         "started": time.time(), "job_pid": job_pid,
                                         "job_started": time.time()})
    return info.id


def lines(*args: str) -> list[dict]:
    done = accelbench("top", "--once", "--json", *args, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    found = [json.loads(line) for line in done.stdout.splitlines()]
    for record in found:
        assert tuple(record) == FIELDS  # every field, in order, on every line
    return found


def without_time(record: dict) -> dict:
    assert isinstance(record["t"], float)
    return {key: value for key, value in record.items() if key != "t"}


def test_once_json_reads_every_vendor_tool(vendor_tools, home):
    run_id = live_run(home, 49880)  # the pid sntilestat's recording shows on RDU 0
    found = lines()
    assert len({r["t"] for r in found}) == 1
    by = {(r["system"], r["device"]): without_time(r) for r in found}
    cpu = [r for r in found if r["system"] == "cpu" and r["device"] != "mem"]
    assert [r["device"] for r in cpu] == ["cpu"]  # each core on request (--per-core)
    assert all(0 <= r["util_percent"] <= 100 and r["source"] == "psutil" for r in cpu)
    mem = by["cpu", "mem"]
    assert mem["mem_total_mib"] == round(psutil.virtual_memory().total / 2 ** 20, 1)
    assert by["cuda", "gpu0"] == {
        "system": "cuda", "source": "nvidia-smi", "device": "gpu0",
        "name": "NVIDIA H100 80GB HBM3", "present": True, "why": "", "util_percent": 100.0,
        "mem_used_mib": 19818.0, "mem_total_mib": 81559.0, "power_w": 631.95,
        "temp_c": 59.0, "pids": [], "runs": []}
    for core in ("nc0", "nc1"):  # an idle trn1.2xlarge: two NeuronCores, 16 GiB each
        assert by["trainium", core] == {
            "system": "trainium", "source": "neuron-monitor", "device": core,
            "name": "trainium", "present": True, "why": "", "util_percent": 0.0,
            "mem_used_mib": 0.0, "mem_total_mib": 16384.0, "power_w": None, "temp_c": None,
            "pids": [], "runs": []}
    ipu = {"system": "ipu", "source": "gc-monitor", "name": "M2000", "present": True,
           "why": "", "util_percent": None, **NULLS, "pids": [], "runs": []}
    assert by["ipu", "ipu0"] == {**ipu, "device": "ipu0", "util_percent": 0.0,
                                 "pids": [205698]}  # python attached; sensors N/A
    for n in (1, 2, 3):
        assert by["ipu", f"ipu{n}"] == {**ipu, "device": f"ipu{n}"}
    rdu = {"system": "sambanova", "source": "sntilestat", "present": True, "why": "",
           "util_percent": 0.0, **NULLS, "pids": [], "runs": []}
    assert by["sambanova", "rdu0"] == {**rdu, "device": "rdu0", "name": "/XRDU_0/RDU_0",
                                       "util_percent": 6.23, "pids": [49880],
                                       "runs": [run_id]}
    names = [f"/XRDU_{x}/RDU_{r}" for x in range(4) for r in range(2)]
    for n in range(1, 8):
        assert by["sambanova", f"rdu{n}"] == {**rdu, "device": f"rdu{n}", "name": names[n]}
    assert [r["system"] for r in found if not r["present"]] == []


def test_once_json_says_why_each_source_is_absent(home, monkeypatch, tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("PYTHONPATH", str(STANDINS / "no_nvml"))
    absent = [without_time(r) for r in lines() if not r["present"]]
    none = {"device": None, "name": None, "present": False, "util_percent": None, **NULLS,
            "pids": [], "runs": []}
    assert absent == [
        {**none, "system": "cuda", "source": "nvidia-smi",
         "why": "NVML: pynvml (nvidia-ml-py) is not installed; nvidia-smi not on PATH"},
        {**none, "system": "trainium", "source": "neuron-monitor",
         "why": "neuron-monitor not on PATH"},
        {**none, "system": "ipu", "source": "gc-monitor",
         "why": "gc-monitor not on PATH; gc-inventory not on PATH"},
        {**none, "system": "sambanova", "source": "sntilestat",
         "why": "sntilestat not on PATH"}]


@pytest.mark.parametrize("width", [80, 160])
def test_once_view_fits_the_width(vendor_tools, home, monkeypatch, width):
    run_id = live_run(home, 49880)
    monkeypatch.setenv("COLUMNS", str(width))
    done = accelbench("top", "--once", timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert max(len(line) for line in out) <= width
    rdu0 = next(line for line in out if " rdu0 " in line)
    # the run whole when wide, else its unique suffix; never cut
    assert (run_id if width >= 110 else run_id.rpartition("-")[2]) in rdu0
    gpu0 = next(line for line in out if " gpu0 " in line)
    assert "100%" in gpu0 and "19.4/79.6 GiB" in gpu0 and "632 W" in gpu0 and "59°C" in gpu0
    assert ("NVIDIA H100 80GB HBM3" in gpu0) == (width >= 110)


def test_a_device_process_is_matched_to_its_run(home):
    """By the job's pid, its process group, or an ancestor; other hosts' runs never."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        mine = live_run(home, os.getpid())
        live_run(home, child.pid, host="another-host")
        runs = LiveRuns(Store(home))
        runs.refresh()
        assert runs.jobs == {os.getpid(): mine}
        assert runs.mark(Device("gpu0", pids=(child.pid,))).runs == (mine,)  # a descendant
        assert runs.mark(Device("gpu0", pids=(os.getpid(),))).runs == (mine,)
        assert runs.mark(Device("gpu0", pids=(1,))).runs == ()
    finally:
        child.kill()
        child.wait()


def test_interval_is_checked():
    done = accelbench("top", "--interval", "0")
    assert done.returncode == 2
    assert "'0' is not a number of seconds from 0.1 to 3600" in done.stderr


def test_nvml_gives_each_gpu_and_its_processes(monkeypatch, tmp_path, home):
    from tests.helpers import fake_pynvml

    module = fake_pynvml(power=False)  # a reading NVML does not support is None
    module.nvmlDeviceGetName = lambda h: b"NVIDIA H100 80GB HBM3"
    module.nvmlDeviceGetComputeRunningProcesses = lambda h: [SimpleNamespace(pid=os.getpid())]
    module.nvmlDeviceGetGraphicsRunningProcesses = lambda h: [SimpleNamespace(pid=4242)]
    monkeypatch.setitem(sys.modules, "pynvml", module)
    run_id = live_run(home, os.getpid())
    with Top(store=Store(home)) as top:
        top.wait_first()
        reading = next(r for r in top.sample().readings if r.system == "cuda")
    assert (reading.source, reading.why) == ("nvml", "")
    assert reading.devices == (Device("gpu0", "NVIDIA H100 80GB HBM3", 97.0, 20480.0, 81920.0,
                                      None, 62.0, tuple(sorted((4242, os.getpid()))), (run_id,)),)


def test_a_hung_tool_holds_up_only_its_own_source(monkeypatch, home):
    """gc-monitor never answers: the other sources are read, and sample() never waits."""
    monkeypatch.setenv("PATH", os.pathsep.join([str(STANDINS / "hang"), str(STANDINS / "top"),
                                                os.environ["PATH"]]))
    monkeypatch.setitem(sys.modules, "pynvml", None)
    monkeypatch.setattr(node, "TOOL_TIMEOUT_S", 120.0)  # it hangs for the whole test
    with Top(store=Store(home)) as top:
        for sampler in top.samplers:
            if sampler.system != "ipu":
                assert sampler.answered.wait(60), sampler.name
        began = time.perf_counter()
        sample = top.sample()
        assert time.perf_counter() - began < 0.5
        hung = next(s for s in top.samplers if s.system == "ipu")._child
    assert hung is not None and hung.wait(5) is not None  # closing stopped the hung tool
    by = {r.system: r for r in sample.readings}
    assert by["ipu"].why == "no reading yet"
    assert by["sambanova"].present and by["cuda"].present and by["trainium"].present


def test_a_tool_that_does_not_answer_in_time_is_reported(monkeypatch, tmp_path):
    bin_dir = tmp_path / "bin"  # the hung gc-monitor and python3 only: no gc-inventory
    bin_dir.mkdir()
    (bin_dir / "gc-monitor").symlink_to(STANDINS / "hang" / "gc-monitor")
    (bin_dir / "python3").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setattr(node, "TOOL_TIMEOUT_S", 0.5)
    with pytest.raises(node.Absent, match=r"^gc-monitor gave no answer in 0.5 s; "
                                          r"gc-inventory not on PATH$"):
        GraphcoreNode(1.0, tmp_path).read()


def live_top(*args: str) -> tuple[subprocess.Popen, int, bytearray]:
    """``accelbench top`` on an 80x24 pseudo-terminal; its output gathered in a thread."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "accelbench.cli.main", "top", *args],
                            stdin=slave, stdout=slave, stderr=slave, cwd=ROOT,
                            env={**os.environ, "TERM": "xterm-256color"})
    os.close(slave)
    output = bytearray()

    def drain() -> None:
        with contextlib.suppress(OSError):
            while data := os.read(master, 65536):
                output.extend(data)

    threading.Thread(target=drain, daemon=True).start()
    return proc, master, output


def wait_for(output: bytearray, text: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while text.encode() not in output:
        assert time.monotonic() < deadline, bytes(output[-2000:])
        time.sleep(0.05)


@pytest.mark.parametrize("leave", ["q", "ctrl-c"])
def test_the_live_view_redraws_and_leaves_on_q_or_ctrl_c(vendor_tools, leave):
    proc, master, output = live_top("--interval", "0.5")
    try:
        wait_for(output, "q quits")
        wait_for(output, "rdu7")
        first = output.count(b"accelbench top")
        deadline = time.monotonic() + 30
        while output.count(b"accelbench top") < first + 2:  # redrawn every interval
            assert time.monotonic() < deadline
            time.sleep(0.05)
        if leave == "q":
            os.write(master, b"q")
        else:
            proc.send_signal(signal.SIGINT)
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert b"Traceback" not in output


def test_p_in_the_live_view_shows_each_core(home):
    proc, master, output = live_top("--interval", "0.5")
    try:
        wait_for(output, "p per core")
        assert b"cpu0 " not in output
        os.write(master, b"p")
        wait_for(output, "cpu0 ")
        os.write(master, b"q")
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)


def test_nvidia_smi_processes_are_put_on_their_gpus(home):
    """Real ``--query-compute-apps`` and ``--query-gpu`` CSV of a 4-GPU node: each GPU's
    pids by its uuid, fields the query left out None, a run's job found on two GPUs."""
    text = (ROOT / "tests/fixtures/real/cuda/query_compute_apps_4gpu.txt").read_text()
    body = [line for line in text.splitlines() if not line.startswith("# ")]
    apps, gpus = "\n".join(body[:4]), "\n".join(body[4:])
    devices = smi_devices(query_rows(gpus), query_rows(apps))
    assert devices == [Device("gpu0", "", 0.0, 1683.0, pids=(1912379,)),
                       Device("gpu1", "", 0.0, 5.0),
                       Device("gpu2", "", 100.0, 74709.0, pids=(3891903,)),
                       Device("gpu3", "", 0.0, 1197.0, pids=(1912379,))]
    run_id = live_run(home, 1912379)
    runs = LiveRuns(Store(home))
    runs.refresh()
    assert [runs.mark(d).runs for d in devices] == [(run_id,), (), (), (run_id,)]


def test_json_without_once_streams_a_sample_every_interval(vendor_tools):
    proc = subprocess.Popen([sys.executable, "-m", "accelbench.cli.main", "top", "--json",
                             "--interval", "0.3"], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        times: list[float] = []
        assert proc.stdout is not None
        for line in proc.stdout:
            record = json.loads(line)
            assert tuple(record) == FIELDS
            if record["t"] not in times:
                times.append(record["t"])
            if len(times) == 3:
                break
        assert times == sorted(times) and times[2] - times[1] >= 0.25
    finally:
        proc.kill()
        proc.wait()


def view_lines(sample, width: int, per_core: bool = False) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(topview.render(sample, width, {"trainium": "AWS Trainium (Neuron SDK)",
                                                 "ipu": "Graphcore IPU (PopTorch)"},
                                 per_core=per_core))
    return console.export_text().splitlines()


def test_many_devices_are_one_strip_with_rows_for_the_busy_ones():
    cores = [Device(f"nc{i}", util_percent=100.0 if i in (5, 70) else 0.0,
                    pids=(4000 + i,) if i in (5, 70) else ()) for i in range(128)]
    sample = Sample(0.0, (Reading("trainium", "neuron-monitor", 0.0, tuple(cores)),
                          Reading("ipu", "gc-monitor", 0.0, why="gc-monitor not on PATH")))
    lines = view_lines(sample, 80)
    assert all(len(line) <= 80 for line in lines)
    bars = "".join("█" if i in (5, 70) else "▁" for i in range(128))
    assert [line.rstrip() for line in lines[1:4]] == [  # the bars folded at 80
        "trainium 128 devices   2%", bars[:80], bars[80:]]
    assert [line.split()[:2] for line in lines[5:7]] == [["trainium", "nc5"],
                                                          ["trainium", "nc70"]]
    assert lines[7:] == ["Graphcore IPU (PopTorch): not present (gc-monitor not on PATH)"]


def test_neuron_cores_carry_their_application_and_its_memory():
    """The recorded report of a 2-process torchrun job (tests/fixtures/recordings): each
    NeuronCore's utilisation, the device memory its application holds, its pid."""
    report = (ROOT / "tests/fixtures/recordings/neuron_monitor.jsonl").read_text().splitlines()
    assert cores(json.loads(report[3])) == [
        Device("nc0", "trainium", 87.5, 2048.0, 16384.0, pids=(48211,)),
        Device("nc1", "trainium", 85.0, 2048.0, 16384.0, pids=(48212,))]


@pytest.fixture
def busy_child():
    """A child process spinning on a core for as long as the test lasts."""
    proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    yield proc
    proc.kill()
    proc.wait()


def test_once_measures_a_loaded_cpu(home, busy_child):
    """One sample is taken over an interval: a core kept busy shows, never 0 %."""
    done = accelbench("top", "--once", timeout=120)
    assert done.returncode == 0, done.stderr
    cpu = re.search(r"^CPU (\d+) cores .*?(\d+)%", done.stdout, re.M)
    assert cpu is not None, done.stdout
    assert int(cpu[2]) * int(cpu[1]) > 40, done.stdout  # 40 % of one core, at the least


def test_once_json_measures_a_loaded_cpu_on_the_whole_and_per_core(home, busy_child):
    cpu = {r["device"]: r for r in lines("--per-core") if r["system"] == "cpu"}
    count = psutil.cpu_count()
    assert sorted(cpu) == sorted(["cpu", "mem", *(f"cpu{i}" for i in range(count))])
    assert cpu["cpu"]["name"] == f"{count} cores"
    assert cpu["cpu"]["util_percent"] * count > 40
    assert sum(cpu[f"cpu{i}"]["util_percent"] for i in range(count)) > 40
    assert {r["device"] for r in lines() if r["system"] == "cpu"} == {"cpu", "mem"}


def test_an_absent_tool_stays_absent_until_it_appears(home, monkeypatch, tmp_path):
    """A tool not on PATH is said so at every sample (never "no answer", as of a tool
    that hangs), and is read once it is installed."""
    bin_dir = tmp_path / "bin"  # python3 only (the stand-ins' interpreter)
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setitem(sys.modules, "pynvml", None)
    monkeypatch.setattr(node, "TOOL_TIMEOUT_S", 0.2)  # "no answer" after 0.4 s
    with Top(0.1, Store(home)) as top:
        top.wait_first()
        whys = []
        for _ in range(6):
            time.sleep(0.3)
            whys.append({r.system: r.why for r in top.sample().readings})
        assert [why["trainium"] for why in whys] == ["neuron-monitor not on PATH"] * 6
        assert [why["sambanova"] for why in whys] == ["sntilestat not on PATH"] * 6
        (bin_dir / "neuron-monitor").symlink_to(STANDINS / "top" / "neuron-monitor")
        deadline = time.monotonic() + 60
        while not (reading := next(r for r in top.sample().readings
                                   if r.system == "trainium")).present:
            assert time.monotonic() < deadline, reading.why
            time.sleep(0.1)
    assert [d.id for d in reading.devices] == ["nc0", "nc1"]


def test_a_local_run_is_on_the_cpu_device(home, tmp_path):
    """A run started here is matched to its job's processes: the CPU device carries them,
    and the README's jq line prints it."""
    launch = subprocess.run([sys.executable, "-m", "accelbench.cli.main", "run", "cpu-mnist",
                             "--detach", "--set", "workload=command", "--set",
                             "command=sleep 120"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120, check=False)
    assert launch.returncode == 0, launch.stderr
    run_id = launch.stdout.strip()
    try:
        wrapper = home / "runs" / run_id / WRAPPER_FILE
        assert holds_within(lambda: "job_pid" in (read_json(wrapper) or {}), 60)
        job = read_json(wrapper)["job_pid"]
        on = [r for r in lines() if run_id in r["runs"]]
        assert [(r["system"], r["device"], r["runs"]) for r in on] == [("cpu", "cpu", [run_id])]
        assert job in on[0]["pids"]
        if shutil.which("jq") is None:
            pytest.skip("jq is not installed: the README's line cannot be run")
        readme = subprocess.run(
            f"{sys.executable} -m accelbench.cli.main top --once --json"
            " | jq -c 'select(.runs != []) | {device, util_percent, runs}'",
            shell=True, capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)
        assert readme.returncode == 0, readme.stderr
        shown = [json.loads(line) for line in readme.stdout.splitlines()]
        assert [(r["device"], r["runs"]) for r in shown] == [("cpu", [run_id])]
    finally:
        accelbench("cancel", run_id)


def test_the_cpu_line_has_its_mean_and_runs_and_each_core_on_request():
    host = [*cpu_devices([100.0, 0.0, 50.0, 25.0]), Device("mem", "memory", 18.5, 12083.2, 64298.4)]
    run = "20261123-175500-cpu-mnist-3fa9c1"
    host[0] = dataclasses.replace(host[0], pids=(4242,), runs=(run,))
    sample = Sample(0.0, (Reading("cpu", "psutil", 0.0, tuple(host)),))
    cpu = "CPU 4 cores ████▃       44%  mem 11.8/62.8 GiB 18%"
    assert view_lines(sample, 80)[1:] == [f"{cpu}  3fa9c1", "no accelerator found"]
    assert view_lines(sample, 160)[1] == f"{cpu}  {run}"  # whole when wide
    assert view_lines(sample, 80, per_core=True)[1:3] == [
        f"{cpu}  3fa9c1", "cpu0 ████ 100%  cpu1        0%  cpu2 ██    50%  cpu3 █     25%"]
    assert view_lines(sample, 40, per_core=True)[1:5] == [
        "CPU 4 cores ████▃       44%", "mem 11.8/62.8 GiB 18%  3fa9c1",
        "cpu0 ████ 100%  cpu1        0%", "cpu2 ██    50%  cpu3 █     25%"]
