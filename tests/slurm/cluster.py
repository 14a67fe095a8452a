"""A private one-node Slurm cluster for the tests, entirely under one directory.

Its slurm.conf, gres.conf, state, spool, logs, pid files and its own munged (key and
socket) live under ``root``; it listens on free ports and has a unique ClusterName, so it
never meets the machine's own Slurm. Clients reach it through ``SLURM_CONF`` (set by the
caller) and slurm.conf's ``AuthInfo=socket=...``. Needs root (SlurmUser=root) and
Debian's slurmctld, slurmd, slurm-client and munge; installing them is CI's job.

Accounting (``sacct``) needs ``slurmdbd`` and a MariaDB server (Debian's slurmdbd and
mariadb-server): where they are installed the cluster runs its own of both (the database
under ``root`` too, on a free port of 127.0.0.1); where they are not, or do not start, it
runs without accounting and ``accounting_error`` says why.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sinfo", "sbatch", "squeue", "scontrol", "scancel", "srun")
GRES = {"rdu": 8, "ipu": 4}  # count-only: no devices behind them
NODE = "localhost"
ACCOUNTING = ("mariadbd", "mariadb-install-db", "slurmdbd", "sacctmgr", "sacct")
PLUGINS = f"lib/{sysconfig.get_config_var('MULTIARCH') or 'x86_64-linux-gnu'}/slurm-wlm"


class ClusterError(Exception):
    """The private cluster could not be started (the message says why)."""


def program(name: str) -> str | None:
    """The path of program ``name`` (daemons: also in /usr/sbin, off a user's PATH)."""
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")


def missing_tools() -> list[str]:
    """The Slurm and munge programs that are not installed here."""
    return [name for name in (*DAEMONS, *CLIENTS) if program(name) is None]


def free_ports(count: int) -> list[int]:
    """``count`` distinct TCP ports that nothing listens on now."""
    socks = [socket.socket() for _ in range(count)]
    try:
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in socks]
    finally:
        for sock in socks:
            sock.close()


# Variables that would point a Slurm command elsewhere (an allocation the tests run in,
# another cluster, output formats): none of them may leak into the private cluster.
SLURM_ENV_PREFIXES = ("SLURM_", "SBATCH_", "SALLOC_", "SQUEUE_", "SINFO_", "SCONTROL_",
                      "SCANCEL_")


def clean_env(conf: Path) -> dict[str, str]:
    """This process's environment without any Slurm variables, plus ``SLURM_CONF``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(SLURM_ENV_PREFIXES)}
    return {**env, "SLURM_CONF": str(conf)}


class PrivateCluster:
    """A one-node cluster (GRES rdu:8, ipu:4) whose every file is under ``root``."""

    def __init__(self, root: Path):
        self.root = root
        self.conf = root / "etc" / "slurm.conf"
        self.munge_dir = root / "munge"
        self.socket = self.munge_dir / "munge.socket"
        self.logs = root / "log"
        self.run_dir = root / "run"
        self.accounting_error = "not started"  # why sacct has no answers here ("": it has)
        self._mariadbd: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> None:
        """Write the configuration, start munged, the accounting daemons where they are
        installed, slurmctld and slurmd; wait for an idle node."""
        for sub in ("etc", "state", "spool", "log", "run", "munge", "db"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self._start_munged()
        try:
            self._start_accounting()
        except ClusterError as error:
            self.accounting_error = str(error)
            self._write_config()
        env = clean_env(self.conf)
        for name, *args in (["slurmctld"], ["slurmd", "-N", NODE]):
            argv = [program(name) or name, "-f", str(self.conf), *args]
            out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60,
                                 check=False)
            if out.returncode != 0:
                raise ClusterError(f"{name} did not start: {out.stderr.strip()}"
                                   + self.log_tails())
        self._wait_idle(timeout)

    def stop(self) -> None:
        """Cancel every job, shut the daemons down (theirs by pid file only) and wait."""
        env = clean_env(self.conf)
        if self._pid("slurmctld"):
            jobs = self._call(["squeue", "-h", "-o", "%i"], env).split()
            if jobs:
                self._call(["scancel", *jobs], env)
                deadline = time.monotonic() + 30
                while self._call(["squeue", "-h", "-o", "%i"], env).split() \
                        and time.monotonic() < deadline:
                    time.sleep(0.5)
            self._call(["scontrol", "shutdown"], env)
        for name in ("slurmd", "slurmctld", "slurmdbd", "mariadbd", "munged"):
            self._end(name)
        if self._mariadbd is not None:
            self._mariadbd.wait(timeout=30)

    def log_tails(self, lines: int = 15) -> str:
        """The last lines of each daemon's log, for an error message."""
        out = []
        for log in [*sorted(self.logs.glob("*.log")), self.munge_dir / "munged.log"]:
            if log.exists():
                tail = log.read_text(errors="replace").splitlines()[-lines:]
                out.append(f"\n--- {log}\n" + "\n".join(tail))
        return "".join(out)

    def _start_accounting(self, timeout: float = 60) -> None:
        """A private MariaDB and slurmdbd, the cluster registered with them; slurm.conf
        written to use them. ``ClusterError`` (what failed) where they cannot start."""
        if missing := [name for name in ACCOUNTING if program(name) is None]:
            raise ClusterError(f"{', '.join(missing)} not installed (Debian's mariadb-server"
                               " and slurmdbd)")
        db_port, dbd_port = free_ports(2)
        mariadbd = Path(program("mariadbd") or "mariadbd")
        base = mariadbd.parent.parent
        data = self.root / "db"
        out = subprocess.run([program("mariadb-install-db") or "", "--no-defaults",
                              "--user=root", f"--basedir={base}", f"--datadir={data}",
                              "--auth-root-authentication-method=normal"],
                             capture_output=True, text=True, timeout=120, check=False)
        if out.returncode != 0:
            raise ClusterError(f"mariadb-install-db failed: {out.stderr.strip()[-500:]}")
        self._mariadbd = subprocess.Popen(  # it stays in the foreground: ended by its pid
            [str(mariadbd), "--no-defaults", "--user=root", f"--basedir={base}",
             f"--datadir={data}", f"--lc-messages-dir={base / 'share' / 'mariadb'}",
             f"--socket={self.run_dir / 'mariadb.socket'}", f"--port={db_port}",
             "--bind-address=127.0.0.1", "--skip-grant-tables",  # a test's own, on 127.0.0.1
             f"--pid-file={self.run_dir / 'mariadbd.pid'}",
             f"--log-error={self.logs / 'mariadbd.log'}"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        _wait_port(db_port, timeout, "mariadbd", self.log_tails)
        dbd = program("slurmdbd") or "slurmdbd"
        plugins = [Path("/usr") / PLUGINS, Path(dbd).parent.parent / PLUGINS]
        conf = self.conf.parent / "slurmdbd.conf"
        fd = os.open(conf, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # slurmdbd insists
        with os.fdopen(fd, "w") as f:
            f.write(f"""\
AuthType=auth/munge
AuthInfo=socket={self.socket}
DbdHost=localhost
DbdPort={dbd_port}
SlurmUser=root
PidFile={self.run_dir / "slurmdbd.pid"}
LogFile={self.logs / "slurmdbd.log"}
PluginDir={":".join(dict.fromkeys(str(p) for p in plugins if p.is_dir()))}
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort={db_port}
StorageUser=root
StorageLoc=abtest{os.getpid()}_acct
""")
        self._write_config(dbd_port)
        env = clean_env(self.conf)  # slurmdbd reads slurmdbd.conf beside SLURM_CONF
        out = subprocess.run([dbd], env=env, capture_output=True, text=True, timeout=60,
                             check=False)
        if out.returncode != 0:
            raise ClusterError(f"slurmdbd did not start: {out.stderr.strip()}"
                               + self.log_tails())
        _wait_port(dbd_port, timeout, "slurmdbd", self.log_tails)
        name = f"abtest{os.getpid()}"
        out = subprocess.run([program("sacctmgr") or "", "-i", "add", "cluster", name], env=env,
                             capture_output=True, text=True, timeout=60, check=False)
        if out.returncode != 0:
            raise ClusterError(f"sacctmgr add cluster failed: {out.stderr.strip()}")
        self.accounting_error = ""

    def _write_config(self, dbd_port: int | None = None) -> None:
        ctld_port, slurmd_port = free_ports(2)
        cpus = os.cpu_count() or 1
        mem_mb = max(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20 - 512, 1)
        gres = ",".join(f"{name}:{count}" for name, count in GRES.items())
        root = self.root
        accounting = ("AccountingStorageType=accounting_storage/none\n"
                      "JobAcctGatherType=jobacct_gather/none\n") if dbd_port is None else (
            "AccountingStorageType=accounting_storage/slurmdbd\n"
            f"AccountingStorageHost=localhost\nAccountingStoragePort={dbd_port}\n"
            f"AccountingStoragePass={self.socket}\n"  # the munge socket, for slurmdbd
            "JobAcctGatherType=jobacct_gather/linux\nJobAcctGatherFrequency=1\n")
        self.conf.write_text(f"""\
ClusterName=abtest{os.getpid()}
SlurmctldHost={NODE}
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.socket}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes={",".join(GRES)}
{accounting}JobCompType=jobcomp/none
MinJobAge=600
StateSaveLocation={root / "state"}
SlurmdSpoolDir={root / "spool"}
SlurmctldLogFile={self.logs / "slurmctld.log"}
SlurmdLogFile={self.logs / "slurmd.log"}
SlurmctldPidFile={self.run_dir / "slurmctld.pid"}
SlurmdPidFile={self.run_dir / "slurmd.pid"}
NodeName={NODE} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={mem_mb} Gres={gres} State=UNKNOWN
PartitionName=debug Nodes={NODE} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
""")
        # slurmd reads gres.conf (and cgroup.conf, not needed with proctrack/linuxproc and
        # task/none) from the directory of its slurm.conf.
        (self.conf.parent / "gres.conf").write_text("".join(
            f"NodeName={NODE} Name={name} Count={count}\n" for name, count in GRES.items()))

    def _start_munged(self) -> None:
        key = self.munge_dir / "munge.key"
        fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400)
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(128))
        # --force: munged wants every directory above its socket world-searchable, which
        # pytest's private temporary directories (0700) are not; only root uses it here.
        argv = [program("munged") or "munged", "--force", f"--socket={self.socket}",
                f"--key-file={key}",
                f"--pid-file={self.run_dir / 'munged.pid'}",
                f"--log-file={self.munge_dir / 'munged.log'}",
                f"--seed-file={self.munge_dir / 'munged.seed'}"]
        out = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
        if out.returncode != 0:
            raise ClusterError(f"munged did not start: {out.stderr.strip()}")

    def _wait_idle(self, timeout: float) -> None:
        env = clean_env(self.conf)
        state = ""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self._call(["sinfo", "-h", "-o", "%T"], env).strip()
            if state in ("idle", "mixed", "allocated"):
                return
            if state.startswith(("down", "drain")):
                self._call(["scontrol", "update", f"nodename={NODE}", "state=resume"], env)
            time.sleep(0.5)
        raise ClusterError(f"the node did not become idle in {timeout:.0f} s "
                           f"(state: {state or 'none'})" + self.log_tails())

    @staticmethod
    def _call(argv: list[str], env: dict[str, str]) -> str:
        try:
            return subprocess.run(argv, env=env, capture_output=True, text=True,
                                  timeout=30, check=False).stdout
        except subprocess.TimeoutExpired:
            return ""

    def _pid(self, name: str) -> int | None:
        """The pid in daemon ``name``'s pid file, if that process still runs as ``name``."""
        try:
            pid = int((self.run_dir / f"{name}.pid").read_text().split()[0])
            return pid if _command(pid) == name else None
        except (OSError, ValueError, IndexError):
            return None

    def _end(self, name: str) -> None:
        """Wait for daemon ``name`` to exit (slurm's after ``scontrol shutdown``), then
        SIGTERM it, then SIGKILL it."""
        pid = self._pid(name)
        if pid is None:
            return
        signals = (signal.SIGTERM, signal.SIGKILL) if name == "munged" else \
            (None, signal.SIGTERM, signal.SIGKILL)
        for sig in signals:
            try:
                if sig is not None:
                    os.kill(pid, sig)
            except ProcessLookupError:
                return
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                if _command(pid) != name:
                    return
                time.sleep(0.2)


def _wait_port(port: int, timeout: float, name: str, tails) -> None:
    """Wait until something listens on 127.0.0.1:``port`` (daemon ``name``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.3)
    raise ClusterError(f"{name} did not listen on port {port} in {timeout:.0f} s" + tails())


def _command(pid: int) -> str | None:
    """The command name of live process ``pid`` (None if it is gone or a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            head, _, rest = f.read().rpartition(")")
    except OSError:
        return None
    return None if rest.split()[0] == "Z" else head.partition("(")[2]


def main(argv: list[str]) -> int:
    """``python -m tests.slurm.cluster start|stop DIR``: the same cluster by hand (benches)."""
    if len(argv) != 2 or argv[0] not in ("start", "stop"):
        print("usage: python -m tests.slurm.cluster start|stop DIR", file=sys.stderr)
        return 2
    private = PrivateCluster(Path(argv[1]).resolve())
    if argv[0] == "stop":
        private.stop()
        return 0
    try:
        private.start()
    except ClusterError as error:
        private.stop()
        print(f"could not start the private Slurm cluster: {error}", file=sys.stderr)
        return 1
    print(f"export SLURM_CONF={shlex.quote(str(private.conf))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
