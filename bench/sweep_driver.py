"""What an experiment's driver costs next to the jobs it runs.

Starts a sweep of --runs quick MNIST variants (synthetic data, one thread), one at a
time, and measures the CPU time of the detached driver process against the CPU
time of the jobs (their processes, sampled every 0.2 s), in the same command. Target: the
driver, which follows every run to record its end, costs under 2 % of the jobs.

    python bench/sweep_driver.py [--runs 4] [--samples 6000]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import psutil


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--samples", type=int, default=6000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["ACCELBENCH_HOME"] = home
        from accelbench.engine.config.spec import spec_from_dict
        from accelbench.engine.run import experiment
        from accelbench.engine.run.runner import Runner
        from accelbench.engine.rundir.files import read_json

        spec = spec_from_dict({
            "name": "bench-sweep", "workload": "mnist_cnn", "telemetry_interval": 1.0,
            "params": {"data": "synthetic", "train_samples": args.samples, "test_samples": 500,
                       "epochs": 1, "threads": 1, "batch_size": 64},
            "sweep": {"learning_rate": [0.01 * (i + 1) for i in range(args.runs)]}})
        exp = experiment.start(Runner(), spec)
        driver = None
        while driver is None:
            info = read_json(exp.info.path(experiment.DRIVER_FILE))
            driver = psutil.Process(info["pid"]) if info else None
            time.sleep(0.05)
        started = time.monotonic()
        driver_cpu, job_cpu = 0.0, {}
        while exp.status() == "running":
            try:
                times = driver.cpu_times()
                driver_cpu = times.user + times.system
            except psutil.Error:
                break
            for run in exp.runs():
                pid = (read_json(run.path("wrapper.json")) or {}).get("job_pid")
                try:
                    times = psutil.Process(pid).cpu_times() if pid else None
                except psutil.Error:
                    continue
                if times:
                    job_cpu[run.id] = max(job_cpu.get(run.id, 0.0), times.user + times.system)
            time.sleep(0.2)
        wall = time.monotonic() - started
        job_cpu = sum(job_cpu.values())
        print(f"experiment {exp.status()}: {len(exp.runs())} runs in {wall:.1f} s")
        print(f"driver CPU {driver_cpu:.2f} s, jobs CPU {job_cpu:.2f} s: "
              f"driver/jobs = {100 * driver_cpu / max(job_cpu, 1e-9):.2f} % (target < 2 %)")


if __name__ == "__main__":
    main()
