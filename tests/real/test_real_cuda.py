"""nvidia-smi output (real captures and issue threads) read as per-GPU telemetry."""

from __future__ import annotations

from real_logs import REAL

from accelbench.engine.logs.logfile import parse_file


def _readings(name: str) -> tuple[dict, dict, list]:
    """(last Utilization by engine, last Metric by name, every event) of fixture ``name``."""
    [section] = parse_file(REAL / "cuda" / name)
    assert section.dialects == ["nvidia_smi"]
    util = {e.engine: e for e in section.events if e.kind == "utilization"}
    metrics = {e.name: e.value for e in section.events if e.kind == "metric"}
    return util, metrics, section.events


def test_dmon_h100_under_load():
    util, metrics, events = _readings("dmon_h100_load.txt")
    assert util["gpu0"].percent == 100.0 and util["gpu0 mem bw"].percent == 9.0
    assert metrics == {"gpu0_power_w": 636.0, "gpu0_temp_c": 65.0, "gpu0_mem_temp_c": 59.0,
                       "gpu0_mem_clock_mhz": 2619.0, "gpu0_sm_clock_mhz": 1980.0}
    assert [e.value for e in events if getattr(e, "name", "") == "gpu0_power_w"] == [
        631.0, 634.0, 633.0, 634.0, 636.0]


def test_dmon_missing_memory_temperature_is_skipped():
    util, metrics, _ = _readings("dmon_l40s_load.txt")
    assert "gpu0_mem_temp_c" not in metrics
    assert metrics["gpu0_power_w"] == 108.0 and metrics["gpu0_sm_clock_mhz"] == 2520.0
    assert util["gpu0"].percent == 10.0


def test_dmon_idle_consumer_gpu():
    util, metrics, _ = _readings("dmon_rtx2080_idle.txt")
    assert util["gpu0"].percent == 0.0 and util["gpu0 mem bw"].percent == 10.0
    assert metrics["gpu0_power_w"] == 36.0 and metrics["gpu0_sm_clock_mhz"] == 300.0


def test_dmon_utilization_selection_only():
    util, metrics, events = _readings("dmon_s_u_telegraf.txt")
    assert metrics == {}
    assert set(util) == {"gpu0", "gpu0 mem bw"} and len(events) == 18


def test_dmon_four_gpus_old_driver_with_framebuffer():
    util, metrics, _ = _readings("dmon_pucvmet_deepspeech.txt")
    assert {i: util[f"gpu{i}"].percent for i in range(4)} == {0: 25, 1: 18, 2: 24, 3: 18}
    assert [metrics[f"gpu{i}_mem_used_mib"] for i in range(4)] == [11651, 11653, 11653, 11660]
    assert [metrics[f"gpu{i}_temp_c"] for i in range(4)] == [83, 84, 80, 70]
    assert metrics["gpu3_power_w"] == 86 and metrics["gpu2_sm_clock_mhz"] == 1759


def test_query_gpu_csv_with_units():
    util, metrics, events = _readings("query_gpu_h100_load.csv")
    assert util["gpu0"].percent == 100.0 and util["gpu0 mem bw"].percent == 11.0
    mem = util["gpu0 mem"]
    assert (mem.percent, mem.value, mem.unit) == (24.3, 19818.0, "MiB")
    assert metrics["gpu0_power_w"] == 631.95 and metrics["gpu0_temp_c"] == 59.0
    assert metrics["gpu0_sm_clock_mhz"] == 1980.0
    assert events[0].ts > 1.7e9  # the row's own timestamp (2026/07/14 08:12:53.353)


def test_query_gpu_csv_other_gpus():
    util, metrics, _ = _readings("query_gpu_l40s_load.csv")
    assert (util["gpu0"].percent, metrics["gpu0_power_w"]) == (9.0, 110.23)
    assert util["gpu0 mem"].value == 1235.0
    util, metrics, _ = _readings("query_gpu_rtx2080_load.csv")
    assert (util["gpu0"].percent, metrics["gpu0_power_w"], metrics["gpu0_temp_c"]) == (
        8.0, 111.5, 45.0)
    assert util["gpu0 mem"].percent == 10.0


def test_query_gpu_noheader_nounits_takes_columns_from_the_command(tmp_path):
    # a published row (AAU CLAAUDIA user docs, 0, 99 %, 30994 MiB, 32480 MiB) as
    # noheader,nounits prints it: no real noheader sample was found
    log = tmp_path / "smi.log"
    log.write_text("$ nvidia-smi --query-gpu=index,utilization.gpu,memory.used,memory.total"
                   " --format=csv,noheader,nounits\n0, 99, 30994, 32480\n")
    [section] = parse_file(log)
    util = {e.engine: e for e in section.events if e.kind == "utilization"}
    assert util["gpu0"].percent == 99.0 and util["gpu0 mem"].value == 30994.0
