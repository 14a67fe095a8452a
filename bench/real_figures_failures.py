"""The figures a user reads off each real failure (tests/fixtures/real/failures), for
real_figures.py.

Written down from each fixture's text: what failed (the diagnosis), that the run failed,
the exit code the log reports, and the figures the failure names (the sizes a CUDA
out-of-memory error gives, the collective and times of an NCCL timeout, the rank and signal
of torchrun's root cause, the port, the killed process, the PBS limit, the command the shell
saw killed), never from what accelbench gives.
"""

from __future__ import annotations

from real_figures import Fixture, cause, diag, exit_code, no_failure, status

CUDA_OOM = "CUDA out of memory (allocator, CUDA error, cuBLAS)"
NCCL = "NCCL errors and watchdog timeouts"
TORCHRUN = "torchrun's failed workers (ChildFailedError)"
PORT = "rendezvous port in use (EADDRINUSE)"
KERNEL = "the kernel's out-of-memory killer"
PBS = "PBS limits (`=>> PBS: job killed:`)"
WALLTIME = "Moab's and LSF's walltime kills (`MOAB_INFO:`, `TERM_RUNLIMIT:`)"
SHELL = "a process the shell saw killed (`Killed`, bash's `line N: PID Killed  CMD`)"
PYTHON = "a Python traceback's final exception"
SLURM = "Slurm's time limit, older wording (`slurmstepd: *** JOB ... on NODE ***`)"
SLURM_HOST = "Slurm's time limit from a slurmstepd named with its node (`slurmstepd-NODE:`)"


def _failed(name: str, family: str, code: str, *figures) -> Fixture:
    return Fixture(f"failures/{name}", family, [diag(code), status("failed"), *figures])


def listed() -> list[Fixture]:
    """Every failure fixture with its figures."""
    return [
        _failed("cuda_oom_expandable_pytorch_16417.log", CUDA_OOM, "cuda_oom", cause("GPU 0"),
                cause("22.00 MiB"), cause("23.65 GiB"), cause("11.06 MiB"),
                cause("23.60 GiB"), cause("22.90 GiB"), cause("194.87 MiB")),
        _failed("cuda_oom_capacty_neurolens.log", CUDA_OOM, "cuda_oom", cause("GPU 0"),
                cause("55.57 GiB"), cause("12.00 GiB"), cause("9.02 GiB"),
                cause("984.52 MiB"), cause("463.48 MiB")),
        _failed("cuda_oom_megatron_deepspeed_384.log", CUDA_OOM, "cuda_oom", cause("GPU 3"),
                cause("37631.79 GiB"), cause("79.21 GiB"), cause("50.52 GiB"),
                cause("24.67 GiB"), cause("52.32 GiB")),
        _failed("cuda_oom_two_ranks_medicalgpt_318.log", CUDA_OOM, "cuda_oom", cause("GPU 6"),
                cause("8.01 GiB"), cause("79.33 GiB"), cause("6.37 GiB"), cause("72.95 GiB"),
                cause("72.18 GiB"), cause("3.01 MiB")),
        _failed("cuda_oom_wrapped_bitsandbytes_758.log", CUDA_OOM, "cuda_oom", cause("GPU 0"),
                cause("1024.00 MiB"), cause("8.00 GiB"), cause("12.19 GiB allocated by PyTorch"),
                cause("0 bytes free"), cause("12.68 GiB reserved by PyTorch")),
        _failed("cuda_error_oom_llmc_206.log", CUDA_OOM, "cuda_oom",
                cause("CUDA error: out of memory")),
        _failed("cublas_alloc_failed_densematching_20.log", CUDA_OOM, "cuda_oom",
                cause("CUBLAS_STATUS_ALLOC_FAILED")),
        _failed("nccl_watchdog_ranks_llamafactory_7396.log", NCCL, "nccl_timeout",
                cause("ALLREDUCE"), cause("1580"), cause("rank 0"), cause("600060 ms"),
                cause("600000 ms")),
        _failed("nccl_watchdog_old_ofa_271.log", NCCL, "nccl_timeout", cause("ALLREDUCE"),
                cause("469508"), cause("rank 1"), cause("1802212 ms"), cause("1800000 ms")),
        _failed("nccl_system_error_slowfast_535.log", NCCL, "nccl_error",
                cause("unhandled system error"), cause("2.7.8")),
        _failed("nccl_remote_error_nccl_2076.log", NCCL, "nccl_error",
                cause("remote process exited or there was a network error"), cause("2.21.5")),
        _failed("torchrun_child_failed_minigpt4_237.log", TORCHRUN, "torchrun_failed",
                exit_code(1), cause("train.py"), cause("rank 0")),
        _failed("torchrun_sigkill_time_r1_9.log", TORCHRUN, "torchrun_failed", exit_code(-9),
                cause("local_rank 2"), cause("SIGKILL")),
        _failed("torchrun_no_other_failures_unsloth_4.log", TORCHRUN, "torchrun_failed",
                exit_code(1), cause("gpu.py"), cause("rank 0")),
        _failed("torchrun_stderr_prefix_llamafactory_701.log", TORCHRUN, "torchrun_failed",
                exit_code(1), cause("test_script.py"), cause("rank 1")),
        _failed("address_in_use_fastvideo_575.log", PORT, "address_in_use", cause("29500")),
        _failed("address_in_use_port_vlm_r1_289.log", PORT, "address_in_use", cause("29500")),
        _failed("kernel_oom_dmesg_qaconv_19.log", KERNEL, "kernel_oom", cause("698405"),
                cause("(python)"), cause("12918388 kB")),
        _failed("kernel_oom_dmesg_iso_ert_7797.log", KERNEL, "kernel_oom", cause("1440763"),
                cause("(perl)"), cause("60356340 kB")),
        _failed("pbs_walltime_canu_1214.log", PBS, "pbs_walltime", cause("86415"),
                cause("86400")),
        _failed("pbs_walltime_qiime_1048.log", PBS, "pbs_walltime", cause("259217"),
                cause("259200")),
        _failed("moab_walltime_magetbrain_20.log", WALLTIME, "moab_walltime",
                cause("wallclock limit")),
        _failed("lsf_runlimit_canu_444.log", WALLTIME, "lsf_walltime", exit_code(140),
                cause("TERM_RUNLIMIT")),
        _failed("killed_bare_vectornet_37.log", SHELL, "killed", cause("SIGKILL")),
        _failed("killed_bash_line_opennmt_1824.log", SHELL, "killed", cause("SIGKILL"),
                cause("777016"), cause("CUDA_VISIBLE_DEVICES=$gpu python train.py"),
                cause("run.sh line 66")),
        _failed("killed_bash_line_padded_stgan_35.log", SHELL, "killed", cause("SIGKILL"),
                cause("7364"), cause("python3 train_Donly.py --name=D0"),
                cause("./train.sh line 1")),
        _failed("python_exception_d2t_2.log", PYTHON, "python_exception",
                cause("FileNotFoundError"),
                cause("'models/output/pretrain_copy_ms5_encoder_16990'")),
        _failed("python_exception_chained_triton_1509.log", PYTHON, "python_exception",
                cause("KeyError: ('2-.-0-.-0-460d6c1309cde60a1044fec0550efc5a")),
        _failed("python_exception_chained_mmaction2_1476.log", PYTHON, "python_exception",
                cause("ValueError: invalid literal for int() with base 10: '--work-dir'")),
        Fixture("failures/ignored_exception_simpletransformers_763.log", PYTHON, [no_failure()]),
        Fixture("failures/ignored_exceptions_interleaved_patchnetvlad_34.log", PYTHON,
                [no_failure()]),
        _failed("slurm_time_limit_old_wording_canu_1067.log", SLURM, "slurm_timeout",
                cause("830329"), cause("n447"), cause("2018-08-06T17:21:44")),
        _failed("slurm_time_limit_host_suffix_erc_hpc.log", SLURM_HOST, "slurm_timeout",
                cause("56749"), cause("erc-hpc-comp001"), cause("2022-05-09T14:41:14")),
    ]
