"""Tool output users keep or paste (issue 21, item 3), read by ``accelbench parse`` and
``import`` as they have it (each fixture's text without its source line): nvidia-smi's
default table, ``-q``, ``topo -m`` and ``--query-gpu`` CSV as per-GPU telemetry;
``scontrol show job`` and PBS's ``qstat``, ``qstat -f`` and ``tracejob`` as jobs with their
state; ``sntilestat`` and ``neuron-ls`` listings; and garbage or cut-short output, which
gives a warning or no rows, never a traceback."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from real_logs import REAL

from accelbench.engine.core.errors import UserError
from accelbench.engine.core.events import Diagnosis, Metric, Phase, Utilization
from accelbench.engine.logs.importer import import_file
from accelbench.engine.logs.logfile import parse_file
from accelbench.engine.reading.tools.pbs import PbsJob, read_jobs
from accelbench.engine.systems.cuda.dialect import topology
from accelbench.engine.systems.cuda.node import read_smi
from accelbench.engine.telemetry.node import Absent
from accelbench.engine.telemetry.tool import ToolSampler
from tests.helpers import accelbench


def _body(name: str) -> str:
    """A fixture's text as published (its source line left out)."""
    return (REAL / name).read_text(encoding="utf-8").split("\n", 1)[1]


def _file(tmp_path: Path, name: str, text: str | None = None) -> Path:
    path = tmp_path / Path(name).name
    path.write_text(_body(name) if text is None else text, encoding="utf-8")
    return path


def _events(path: Path) -> list:
    return [e for section in parse_file(path) for e in section.events]


def _metrics(path: Path) -> dict[str, float]:
    return {e.name: e.value for e in _events(path) if isinstance(e, Metric)}


def _utils(path: Path) -> dict[str, tuple[float, float | None]]:
    return {e.engine: (e.percent, e.value) for e in _events(path) if isinstance(e, Utilization)}


def _codes(path: Path) -> list[str]:
    return [e.code for e in _events(path) if isinstance(e, Diagnosis)]


# --- nvidia-smi ----------------------------------------------------------------------

@pytest.mark.parametrize(("name", "busy", "used", "total", "temp", "power"), [
    ("smi_table_h100_load.txt", 100.0, 19818.0, 81559.0, 59.0, 629.0),
    ("smi_table_l40s_load.txt", 9.0, 1235.0, 46068.0, 54.0, 110.0),
    ("smi_table_h100_mig_load.txt", None, 11125.0, 81559.0, 52.0, 432.0),
    ("smi_table_rtx2080_windows_load.txt", 7.0, 1366.0, 8192.0, 44.0, 97.0),
    ("smi_table_h200_idle.txt", 0.0, 0.0, 143771.0, 28.0, 77.0),
])
def test_the_default_table_gives_each_gpus_readings(tmp_path, name, busy, used, total, temp,
                                                    power):
    path = _file(tmp_path, f"cuda/{name}")
    assert _metrics(path) == {"gpu0_temp_c": temp, "gpu0_power_w": power,
                              "gpu0_mem_used_mib": used, "gpu0_mem_total_mib": total}
    utils = _utils(path)
    assert utils["gpu0 mem"] == (round(100 * used / total, 2), used)
    assert utils.get("gpu0") == (None if busy is None else (busy, None))  # MIG: N/A
    assert [s.dialects for s in parse_file(path)] == [["nvidia_smi"]]


def test_tables_printed_one_after_another_make_a_series_at_their_own_times(tmp_path,
                                                                          store):
    """As ``nvidia-smi -l`` prints them: each table's first line dates its readings."""
    idle, load = _body("cuda/smi_table_h200_idle.txt"), _body("cuda/smi_table_h100_load.txt")
    path = _file(tmp_path, "series.txt", idle + load)
    busy = [(e.ts, e.percent) for e in _events(path)
            if isinstance(e, Utilization) and e.engine == "gpu0"]
    taken = [time.mktime(time.strptime(stamp, "%a %b %d %H:%M:%S %Y"))
             for stamp in ("Fri Jul  3 22:10:45 2026", "Tue Jul 14 08:12:53 2026")]
    assert busy == [(taken[0], 0.0), (taken[1], 100.0)]
    [run] = import_file(store, path)
    assert run.summary.duration_s == taken[1] - taken[0]
    q = _events(_file(tmp_path, "cuda/smi_q_h100_load.txt"))
    assert {e.ts for e in q} == {taken[1]}


def test_q_reports_give_utilization_memory_temperature_power_and_clocks(tmp_path):
    h100 = _file(tmp_path, "cuda/smi_q_h100_load.txt")
    assert _metrics(h100) == {
        "gpu0_mem_total_mib": 81559.0, "gpu0_mem_used_mib": 19818.0, "gpu0_temp_c": 59.0,
        "gpu0_mem_temp_c": 55.0, "gpu0_power_w": 629.45, "gpu0_sm_clock_mhz": 1980.0,
        "gpu0_mem_clock_mhz": 2619.0}
    assert _utils(h100) == {"gpu0": (100.0, None), "gpu0 mem bw": (11.0, None),
                            "gpu0 mem": (24.3, 19818.0)}
    # a newer driver: average power N/A, instantaneous 97.75 W; memory temperature N/A
    rtx = _metrics(_file(tmp_path, "cuda/smi_q_rtx2080_610_load.txt"))
    assert rtx["gpu0_power_w"] == 97.75 and "gpu0_mem_temp_c" not in rtx
    assert (rtx["gpu0_mem_used_mib"], rtx["gpu0_mem_total_mib"]) == (815.0, 8192.0)


def test_q_reports_number_their_gpus_in_order(tmp_path):
    one = _body("cuda/smi_q_h100_load.txt")
    gpu = one[one.index("GPU 00000000"):]
    two = one + "\n" + gpu.replace("00000000:00:09.0", "00000000:00:0A.0").replace(
        ": 100 %", ": 42 %")
    utils = _utils(_file(tmp_path, "two.txt", two))
    assert (utils["gpu0"], utils["gpu1"]) == ((100.0, None), (42.0, None))


def test_topo_matrices_give_the_links_between_devices(tmp_path):
    assert topology(_body("cuda/topo_2gpu_phb_club3090.txt")) == {
        "GPU0": {"GPU0": "X", "GPU1": "PHB", "CPU Affinity": "0-63", "NUMA Affinity": "0",
                 "GPU NUMA ID": "N/A"},
        "GPU1": {"GPU0": "PHB", "GPU1": "X", "CPU Affinity": "0-63", "NUMA Affinity": "0",
                 "GPU NUMA ID": "N/A"}}
    dgx = topology(_body("cuda/topo_dgx_a100_nccl1505.txt"))
    assert dgx["GPU2"]["GPU3"] == "NV12" and dgx["GPU2"]["NIC2"] == "PXB"
    assert dgx["GPU3"]["CPU Affinity"] == "16-31,144-159"
    # the header underlined with terminal escapes, as nvidia-smi prints it to a terminal
    assert topology(_body("cuda/topo_h100_single.txt")) == {"GPU0": {
        "GPU0": "X", "CPU Affinity": "0-19", "NUMA Affinity": "0", "GPU NUMA ID": "N/A"}}
    nvlinks = _metrics(_file(tmp_path, "cuda/topo_dgx_a100_nccl1505.txt"))
    assert nvlinks["gpu0_gpu1_nvlinks"] == 12 and nvlinks["gpu3_gpu7_nvlinks"] == 12
    assert len(nvlinks) == 7 + 6 + 5 + 4  # GPU0-GPU3's rows, each with the GPUs after it
    pcie = _metrics(_file(tmp_path, "cuda/topo_8gpu_pix_kubernetes.txt"))
    assert set(pcie.values()) == {0} and "gpu0_gpu1_nvlinks" in pcie


def test_a_query_gpu_csv_without_an_index_numbers_its_gpus_in_order(tmp_path):
    path = _file(tmp_path, "cuda/query_gpu_2gpu_bpytop.csv")
    metrics = _metrics(path)
    assert (metrics["gpu0_power_w"], metrics["gpu1_power_w"]) == (106.56, 5.68)
    assert (metrics["gpu0_mem_total_mib"], metrics["gpu1_mem_total_mib"]) == (11175.0, 6078.0)
    assert _utils(path)["gpu1"] == (0.0, None)


def test_a_query_gpu_csv_without_header_or_units_takes_its_fields_from_its_command(tmp_path):
    metrics = _metrics(_file(tmp_path, "cuda/query_gpu_noheader_nounits_2gpu.txt"))
    assert metrics == {"gpu0_mem_used_mib": 0.0, "gpu0_mem_total_mib": 12288.0,
                       "gpu0_temp_c": 42.0, "gpu1_mem_used_mib": 15868.0,
                       "gpu1_mem_total_mib": 16311.0, "gpu1_temp_c": 67.0}


def test_a_gpu_row_that_cannot_be_read_is_reported_not_dropped(tmp_path):
    table = _body("cuda/smi_table_l40s_load.txt").replace(
        "| N/A   54C    P0            110W /  350W |    1235MiB /  46068MiB |",
        "| N/A   54C    P0            110W /  350W |    1235MiB /  460", 1)
    path = _file(tmp_path, "cut.txt", table)
    assert _codes(path) == ["nvidia_smi_unreadable"]
    [section] = parse_file(path)
    assert section.status == "ended"  # a warning: the run's status is not the table's
    dmon = ("# gpu   pwr  temp    sm   mem\n# Idx     W     C     %     %\n"
            "    0   111    83    25     7\n    1   111    84\n")
    path = _file(tmp_path, "dmon.txt", dmon)
    assert _codes(path) == ["nvidia_smi_unreadable"] and _utils(path)["gpu0"] == (25.0, None)
    csv = "index, utilization.gpu [%], memory.used [MiB]\n0, 12 %, 3 MiB\n1, 4 %\n"
    assert _codes(_file(tmp_path, "q.csv", csv)) == ["nvidia_smi_unreadable"]
    # a reading that is no number nvidia-smi prints (1e999 is no 1 W), and its N/A, is not
    dmon = "# gpu   pwr    sm\n# Idx     W     %\n    0 1e999    12\n    1     -     5\n"
    path = _file(tmp_path, "values.txt", dmon)
    [warning] = [e for e in _events(path) if isinstance(e, Diagnosis)]
    assert warning.message == "nvidia-smi: a GPU's pwr reading (gpu0) cannot be read: '1e999'"
    assert _metrics(path) == {} and _utils(path) == {"gpu0": (12.0, None), "gpu1": (5.0, None)}


def test_top_shows_a_gpu_row_it_cannot_read():
    header = "index, name, uuid, utilization.gpu [%], memory.used [MiB], memory.total [MiB]"
    good = "0, NVIDIA H100, GPU-1, 3 %, 10 MiB, 80 MiB"

    def tool(rows: str):
        return lambda argv: f"{header}\n{rows}\n" if "--query-gpu" in argv[1] else ""

    devices = read_smi(tool(f"{good}\n1, NVIDIA H1"))
    assert [d.id for d in devices] == ["gpu0", "gpu?"]
    assert devices[1].name == "unreadable nvidia-smi row: 1, NVIDIA H1"
    with pytest.raises(Absent, match="no GPU row that can be read: 0, NV"):
        read_smi(tool("0, NV"))


def test_a_sampled_tool_line_that_cannot_be_read_is_said_once(tmp_path, capfd):
    class Tool(ToolSampler):
        name = tool = "fake"

        def argv(self) -> list[str]:
            return [sys.executable, "-c", "print('0 ok'); print('x bad'); print('y bad')"]

        def feed(self, line: str):
            return [{"engine": "e", "percent": float(line.split(maxsplit=1)[0])}]

    sampler = Tool(1.0, tmp_path).start()
    err = ""
    for _ in range(200):  # until the tool has exited (it says so)
        err += capfd.readouterr().err
        if "exited with code" in err:
            break
        time.sleep(0.05)
    sampler.close()
    assert err.count("cannot be read") == 1  # two such lines: said once
    said = "fake printed a line that cannot be read (skipped, and any more like it): x bad"
    assert said in err


# --- Slurm: scontrol show job ----------------------------------------------------------

def test_scontrol_show_job_gives_the_jobs_state_exit_and_time(tmp_path, store):
    path = _file(tmp_path, "slurm/scontrol_show_job_oneliner_timeout.txt")
    [section] = parse_file(path)
    assert (section.dialects, section.status, section.exit_code) == (
        ["slurm_table"], "failed", -15)
    assert section.title == "job 3 test.jcf: TIMEOUT, 00:01:12"
    assert _codes(path) == ["slurm_timeout"] and _metrics(path) == {"elapsed_s": 72.0}
    [run] = import_file(store, path)
    assert (run.status, run.summary.duration_s) == ("failed", 72.0)
    running = _file(tmp_path, "slurm/scontrol_show_job_running_gooseslurm.txt")
    [section] = parse_file(running)
    assert section.status == "running" and _metrics(running) == {"elapsed_s": 73650.0}
    assert [e.detail for e in section.events if isinstance(e, Phase)] == [
        "Slurm: RUNNING on f006"]
    with pytest.raises(UserError, match="no section holds a log"):
        import_file(store, running)  # a running job is shown, not filed


# --- PBS -------------------------------------------------------------------------------

def _jobs(name: str) -> list[PbsJob]:
    found = read_jobs(_body(f"pbs/{name}"))
    assert found is not None
    return [job for job, _ in found]


def test_qstat_f_blocks_give_each_jobs_state_exit_status_and_resources():
    [failed] = _jobs("qstat_f_torque_failure_barnacle.txt")
    assert failed == PbsJob("522083.barnacle.ucsd.edu", "C", "timeout.pbs", "short4gb", -11,
                            14.0, 1.0, 0.0, 3500.0, "brncl-31/5", "")
    assert failed.out_of_walltime
    jobs = _jobs("qstat_f_pbspro_aiida.txt")
    assert [(j.job_id, j.state, j.walltime_s, j.walltime_limit_s) for j in jobs] == [
        ("68350.mycluster", "Q", None, 3600.0), ("68351.mycluster", "Q", None, 3600.0),
        ("69301.mycluster", "R", 231976.0, 259200.0)]
    assert jobs[0].comment == "Not Running: Node is in an ineligible state: offline"
    assert jobs[2].cput_s == 14727363.0 and jobs[2].mem_kib == 13378420.0


def test_qstat_tables_give_each_jobs_state_and_times():
    assert [(j.job_id, j.state, j.name, j.queue) for j in _jobs("qstat_x_artemis.txt")] == [
        ("2557008.pbsserver", "Q", "Index_hayim", "small")]
    assert [(j.job_id, j.state) for j in _jobs("qstat_groq_alcf.txt")] == [
        ("3084.groq-r01-co*", "R")]
    [ncar] = _jobs("qstat_u_ncar_dask.txt")  # -a's times are hours:minutes
    assert (ncar.job_id, ncar.state, ncar.walltime_s, ncar.walltime_limit_s) == (
        "1681778.chadmin", "R", 60.0, 1200.0)
    [polaris] = _jobs("qstat_u_polaris_alcf.txt")
    assert (polaris.state, polaris.walltime_s, polaris.walltime_limit_s) == ("Q", None, 1800.0)
    [k8s] = _jobs("qstat_s_pbspro_kubernetes.txt")  # -s: the comment under its row
    assert k8s.comment == "Job run at Mon Apr 29 at 07:11 on (node1:ncpus=1:mem=655360kb)"


def test_tracejob_gives_the_jobs_end_exit_status_and_resources():
    [azure] = _jobs("tracejob_pbspro_azure.txt")
    assert azure == PbsJob("6.ip-0A020205", "F", "pitest", "workq", 0, 11.0, None, 11.0,
                           9848.0)
    [cream] = _jobs("tracejob_torque_cream.txt")  # its usage continued on the next line
    assert (cream.state, cream.exit_status, cream.walltime_s, cream.name) == (
        "F", 0, 615.0, "cream_365713239")


@pytest.mark.parametrize(("name", "status", "exit_code", "duration"), [
    ("qstat_f_torque_failure_barnacle.txt", "failed", -11, 14.0),
    ("qstat_f_torque_success_barnacle.txt", "done", 0, 27.0),
    ("tracejob_pbspro_azure.txt", "done", 0, 11.0),
    ("tracejob_torque_colgate.txt", "done", 0, 1.0),
    ("tracejob_torque_gc3pie.txt", "done", 0, 125.0),
])
def test_import_files_a_finished_pbs_job_with_its_status(tmp_path, store, name, status,
                                                        exit_code, duration):
    [run] = import_file(store, _file(tmp_path, f"pbs/{name}"))
    assert (run.status, run.summary.ending.exit_code, run.summary.duration_s) == (
        status, exit_code, duration)


def test_a_walltime_kill_is_diagnosed(tmp_path):
    path = _file(tmp_path, "pbs/qstat_f_torque_failure_barnacle.txt")
    [section] = parse_file(path)
    [diagnosis] = [e for e in section.events if isinstance(e, Diagnosis)]
    assert diagnosis.code == "pbs_walltime"
    assert diagnosis.message == ("PBS job 522083.barnacle.ucsd.edu (timeout.pbs) was killed"
                                 " at its walltime limit (00:00:01)")
    assert _metrics(path) == {"elapsed_s": 14.0, "cpu_time_s": 0.0, "max_rss_mib": 3.418,
                              "walltime_limit_s": 1.0}


def test_queued_and_running_pbs_jobs_are_shown_not_filed(tmp_path, store):
    path = _file(tmp_path, "pbs/qstat_f_pbspro_aiida.txt")
    assert [(s.title, s.status) for s in parse_file(path)] == [
        ("job 68350.mycluster cell-Qnormal: Q", "queued"),
        ("job 68351.mycluster cell-Qnormal: Q", "queued"),
        ("job 69301.mycluster Cu-dbp: R, 64:26:16", "running")]
    with pytest.raises(UserError, match="no section holds a log"):
        import_file(store, path)


def test_parse_shows_a_pbs_job(tmp_path, home, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    out = accelbench("parse", str(_file(tmp_path, "pbs/qstat_f_torque_failure_barnacle.txt")))
    assert out.returncode == 0, out.stderr
    assert "job 522083.barnacle.ucsd.edu timeout.pbs: C, exit -11, 00:00:14" in out.stdout
    assert "pbs_walltime" in out.stdout


@pytest.mark.parametrize("text", [
    "Job Id: 1.server\n    Job_Name = a\n    job_st",  # cut before its state
    "Job Id: \n\n",
    ("Job id            Name             User              Time Use S Queue\n"
     "----------------  ---------------- ----------------  -------- - -----\n"
     "\x00\x1b[2J garbage ~~~ ###\n"),
    "JobId=abc JobState=WHAT\n",
    "Job: \n",
])
def test_garbage_or_cut_records_give_no_rows_and_no_traceback(tmp_path, home, text):
    path = _file(tmp_path, "garbage.txt", text)
    assert read_jobs(text) is None
    assert _events(path) == [] and [s.status for s in parse_file(path)] == ["ended"]
    out = accelbench("parse", str(path))
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr


def test_a_log_that_only_starts_like_a_pbs_record_is_read_as_a_log(tmp_path):
    text = ("Job: resnet50\nJob Id: 4242.server\n"
            "{'loss': 0.25, 'learning_rate': 1e-05, 'epoch': 1.0}\n")
    assert read_jobs(text) is None
    [section] = parse_file(_file(tmp_path, "train.log", text))
    assert section.dialects == ["hf_trainer"] and _metrics(_file(tmp_path, "t.log", text))[
        "loss"] == 0.25


def test_a_tracejob_with_garbled_figures_gives_the_job_without_them(tmp_path):
    text = "Job: 12.server\n\n01/01/2020 10:00:00  S    Exit_status=abc resources_used.walltime=x\n"
    [section] = parse_file(_file(tmp_path, "garbled.txt", text))
    assert (section.title, section.status, section.exit_code) == (
        "job 12.server: F", "ended", None)
    assert [type(e) for e in section.events] == [Phase]


# --- sntilestat, neuron-ls ---------------------------------------------------------------

def test_sntilestat_tables_give_each_rdus_busy_share(tmp_path):
    utils = _utils(_file(tmp_path, "sambanova/sntilestat_gpt15b_sn30.txt"))
    assert utils["rdu0"] == (91.77, None) and utils["rdu1"] == (90.41, None)
    assert len(utils) == 8
    bad = _body("sambanova/sntilestat_idle.txt").replace("100.0", "1O0.0", 1)
    path = _file(tmp_path, "bad.txt", bad)
    assert _codes(path) == ["sntilestat_unreadable"]


def test_neuron_ls_listings_give_each_devices_cores_and_memory(tmp_path):
    assert _metrics(_file(tmp_path, "trainium/neuron_ls_inf1_issue359.txt")) == {
        "neuron0_cores": 4, "neuron0_memory_gib": 8.0}
    trn2 = _metrics(_file(tmp_path, "trainium/neuron_ls_trn2n_48xlarge.txt"))
    assert len(trn2) == 32 and trn2["neuron15_cores"] == 4
    assert _metrics(_file(tmp_path, "trainium/neuron_ls_trn1_2xlarge.json")) == {
        "neuron0_cores": 2, "neuron0_memory_gib": 32.0}
