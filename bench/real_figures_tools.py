"""The figures a user reads off tool output kept or pasted (issue 21, item 3), for
real_figures.py: nvidia-smi's default table, ``-q``, ``topo -m`` and ``--query-gpu`` CSV
(tests/fixtures/real/cuda), ``scontrol show job`` (slurm), PBS ``qstat``, ``qstat -f`` and
``tracejob`` (pbs). Read as ``accelbench parse``/``import`` read them, ``topo -m`` by its
reader (the link types between devices). Written down from each fixture's text.
"""

from __future__ import annotations

from typing import Any

from real_figures import Fixture, diag, exit_code, phase, rows, status, text, util, value


def _topology(body: str) -> Any:
    from accelbench.engine.systems.cuda.dialect import topology
    return topology(body)


def _gpu(i: int, busy: float | None, used: float, total: float, temp: float,
         power: float) -> list:
    """What a user reads of GPU ``i`` off nvidia-smi: utilisation (None: N/A), memory
    used of total (MiB), temperature (C), power (W)."""
    return [*([util(f"gpu{i}", busy)] if busy is not None else []),
            value(used, "MiB used", f"gpu{i}_mem_used"), value(total, "MiB", f"gpu{i}_mem_total"),
            value(temp, "C", f"gpu{i}_temp"), value(power, "W", f"gpu{i}_power")]


def _table(name: str, *figures: Any) -> Fixture:
    return Fixture(f"cuda/{name}", "nvidia-smi default table", list(figures))


def _job(name: str, fmt: str, *figures: Any) -> Fixture:
    return Fixture(f"pbs/{name}", fmt, list(figures))


def listed() -> list[Fixture]:
    return [
        # --- nvidia-smi ---------------------------------------------------------------
        _table("smi_table_h100_load.txt", *_gpu(0, 100.0, 19818, 81559, 59, 629)),
        _table("smi_table_l40s_load.txt", *_gpu(0, 9.0, 1235, 46068, 54, 110)),
        _table("smi_table_h100_mig_load.txt", *_gpu(0, None, 11125, 81559, 52, 432)),
        _table("smi_table_rtx2080_windows_load.txt", *_gpu(0, 7.0, 1366, 8192, 44, 97)),
        _table("smi_table_h200_idle.txt", *_gpu(0, 0.0, 0, 143771, 28, 77)),
        Fixture("cuda/smi_q_h100_load.txt", "nvidia-smi -q", [
            *_gpu(0, 100.0, 19818, 81559, 59, 629.45), util("gpu0 mem bw", 11.0),
            value(55, "C memory", "gpu0_mem_temp"), value(1980, "MHz", "gpu0_sm_clock"),
            value(2619, "MHz", "gpu0_mem_clock")]),
        Fixture("cuda/smi_q_rtx2080_610_load.txt", "nvidia-smi -q", [
            *_gpu(0, 8.0, 815, 8192, 38, 97.75), util("gpu0 mem bw", 3.0),
            value(2070, "MHz", "gpu0_sm_clock"), value(7500, "MHz", "gpu0_mem_clock")]),
        Fixture("cuda/query_gpu_2gpu_bpytop.csv", "nvidia-smi --query-gpu csv", [
            *_gpu(0, 36.0, 2856, 11175, 60, 106.56), *_gpu(1, 0.0, 4, 6078, 49, 5.68)]),
        Fixture("cuda/query_gpu_noheader_nounits_2gpu.txt",
                "nvidia-smi --query-gpu csv,noheader,nounits", [
                    util("gpu0", 0.0), value(0, "MiB used", "gpu0_mem_used"),
                    value(12288, "MiB", "gpu0_mem_total"), value(42, "C", "gpu0_temp"),
                    util("gpu1", 100.0), value(15868, "MiB used", "gpu1_mem_used"),
                    value(16311, "MiB", "gpu1_mem_total"), value(67, "C", "gpu1_temp")]),
        Fixture("cuda/topo_h100_single.txt", "nvidia-smi topo -m",
                [rows(1), text("0-19")], _topology),
        Fixture("cuda/topo_2gpu_phb_club3090.txt", "nvidia-smi topo -m",
                [rows(2), text("PHB"), text("0-63")], _topology),
        Fixture("cuda/topo_8gpu_pix_kubernetes.txt", "nvidia-smi topo -m",
                [rows(4), text("PIX"), text("PHB"), text("SYS"), text("0-9,20-29")],
                _topology),
        Fixture("cuda/topo_dgx_a100_nccl1505.txt", "nvidia-smi topo -m",
                [rows(4), text("NV12"), text("PXB"), text("SYS"), text("48-63,176-191"),
                 text("16-31,144-159")], _topology),
        # --- Slurm: scontrol show job -----------------------------------------------
        Fixture("slurm/scontrol_show_job_oneliner_timeout.txt", "scontrol show job", [
            diag("slurm_timeout"), status("failed"), exit_code(-15),
            value(72, "RunTime", "elapsed_s")]),
        Fixture("slurm/scontrol_show_job_running_gooseslurm.txt", "scontrol show job", [
            phase("running"), value(73650, "RunTime", "elapsed_s")]),
        # --- PBS ------------------------------------------------------------------------
        _job("qstat_f_torque_failure_barnacle.txt", "PBS qstat -f", diag("pbs_walltime"),
             status("failed"), exit_code(-11), value(14, "walltime used", "elapsed_s"),
             value(1, "walltime limit", "walltime_limit_s"),
             value(3.418, "MiB", "max_rss_mib")),
        _job("qstat_f_torque_success_barnacle.txt", "PBS qstat -f", status("done"),
             exit_code(0), value(27, "walltime used", "elapsed_s"),
             value(12, "cput", "cpu_time_s"), value(14400, "walltime limit", "walltime_limit"),
             value(340.625, "MiB", "max_rss_mib")),
        _job("qstat_f_pbspro_aiida.txt", "PBS qstat -f", phase("queued"), phase("running"),
             value(231976, "walltime used 64:26:16", "elapsed_s"),
             value(14727363, "cput 4090:56:03", "cpu_time_s"),
             value(259200, "walltime limit 72:00:00", "walltime_limit"),
             value(3600, "walltime limit 01:00:00", "walltime_limit")),
        _job("tracejob_torque_colgate.txt", "PBS tracejob", status("done"), exit_code(0),
             value(1, "walltime used", "elapsed_s"), value(4.879, "MiB", "max_rss_mib")),
        _job("tracejob_pbspro_azure.txt", "PBS tracejob", status("done"), exit_code(0),
             value(11, "walltime used", "elapsed_s"), value(11, "cput", "cpu_time_s"),
             value(9.617, "MiB", "max_rss_mib")),
        _job("tracejob_torque_cream.txt", "PBS tracejob", status("done"), exit_code(0),
             value(615, "walltime used 00:10:15", "elapsed_s"),
             value(1, "cput", "cpu_time_s"), value(11.105, "MiB", "max_rss_mib")),
        _job("tracejob_torque_gc3pie.txt", "PBS tracejob", status("done"), exit_code(0),
             value(125, "walltime used 00:02:05", "elapsed_s"),
             value(2.309, "MiB", "max_rss_mib")),
        _job("qstat_x_artemis.txt", "PBS qstat", phase("queued")),
        _job("qstat_groq_alcf.txt", "PBS qstat", phase("running")),
        _job("qstat_u_polaris_alcf.txt", "PBS qstat -a/-u", phase("queued"),
             value(1800, "Req'd Time 00:30", "walltime_limit")),
        _job("qstat_u_ncar_dask.txt", "PBS qstat -a/-u", phase("running"),
             value(60, "Elap Time 00:01", "elapsed_s"),
             value(1200, "Req'd Time 00:20", "walltime_limit")),
        _job("qstat_u_indy2_carpentry.txt", "PBS qstat -a/-u", phase("running"),
             value(345600, "Req'd Time 96:00", "walltime_limit")),
        _job("qstat_s_pbspro_kubernetes.txt", "PBS qstat -a/-u", phase("running"),
             value(120, "Elap Time 00:02", "elapsed_s")),
    ]
