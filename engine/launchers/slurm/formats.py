"""What Slurm brings to the reading of every log (``reading.formats``, registered under
``accelbench.formats``): ``slurmstepd``'s and ``srun``'s lines in any job's output, and
``sacct``/``squeue``/``sinfo``/``scontrol`` tables read whole, a job a run. Loads the
dialects and table readers only, never the launchers."""

from __future__ import annotations

from accelbench.engine.launchers.slurm.log_dialect import SlurmLog
from accelbench.engine.launchers.slurm.table_dialect import SlurmTable
from accelbench.engine.launchers.slurm.tables import job_tables
from accelbench.engine.reading.formats import Formats
from accelbench.engine.reading.tools import ToolOutput

FORMATS = Formats("slurm", dialects=(SlurmLog,),
                  tables=(ToolOutput(SlurmTable, job_tables),))
