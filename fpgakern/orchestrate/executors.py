"""Where tasks run: in this process, in a local process pool, or on a Dask cluster.

Each executor offers ``submit(job) -> future`` and ``wait_any(futures) -> finished``;
the scheduler needs nothing else. Executors are found by name (``EXECUTORS``).
"""

from __future__ import annotations

import concurrent.futures as cf
import os
from collections.abc import Iterable
from typing import Any, Protocol

from fpgakern.errors import ToolError, UsageError
from fpgakern.orchestrate.worker import JobResult, StepJob, run_job
from fpgakern.util.text import plural


class Executor(Protocol):
    description: str

    def submit(self, job: StepJob) -> Any: ...

    def wait_any(self, futures: Iterable[Any]) -> set[Any]: ...

    def result(self, future: Any) -> JobResult: ...

    def close(self) -> None: ...


class LocalExecutor:
    """A process pool of ``jobs`` workers (tasks run in this process when jobs is 1)."""

    def __init__(self, jobs: int | None = None) -> None:
        self.jobs = max(1, jobs or os.cpu_count() or 1)
        self.pool: cf.ProcessPoolExecutor | None = None  # started on the first job
        self.description = f"local, {self.jobs} job{'s' if self.jobs > 1 else ''}"

    def submit(self, job: StepJob) -> cf.Future[JobResult]:
        if self.jobs > 1:
            if self.pool is None:
                self.pool = cf.ProcessPoolExecutor(self.jobs)
            return self.pool.submit(run_job, job)
        future: cf.Future[JobResult] = cf.Future()
        future.set_result(run_job(job))
        return future

    def wait_any(self, futures: Iterable[cf.Future[JobResult]]) -> set[cf.Future[JobResult]]:
        done, _ = cf.wait(list(futures), return_when=cf.FIRST_COMPLETED)
        return set(done)

    def result(self, future: cf.Future[JobResult]) -> JobResult:
        return future.result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)


class DaskExecutor:
    """Tasks on a Dask distributed cluster: a scheduler address, or a LocalCluster."""

    def __init__(self, scheduler: str | None = None, workers: int | None = None) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise ToolError("the dask executor needs dask.distributed: "
                            "pip install 'fpgakern[dask]'") from None
        self.cluster = None
        if scheduler:
            try:
                self.client = Client(scheduler, timeout="10s")
            except OSError as err:
                raise ToolError(f"cannot reach the Dask scheduler {scheduler}: {err}") from None
            self.description = f"dask, scheduler {scheduler}"
        else:
            count = max(1, workers or os.cpu_count() or 1)
            self.cluster = LocalCluster(n_workers=count, threads_per_worker=1, processes=True,
                                        dashboard_address=None)
            self.client = Client(self.cluster)
            self.description = f"dask, LocalCluster of {plural(count, 'worker')}"

    def submit(self, job: StepJob) -> Any:
        return self.client.submit(run_job, job, pure=False)

    def wait_any(self, futures: Iterable[Any]) -> set[Any]:
        from distributed import wait

        done, _ = wait(list(futures), return_when="FIRST_COMPLETED")
        return set(done)

    def result(self, future: Any) -> JobResult:
        return future.result()

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


EXECUTORS = ("local", "dask")


def make_executor(name: str, jobs: int | None = None, scheduler: str | None = None) -> Executor:
    if name == "local":
        if scheduler:
            raise UsageError("--scheduler goes with --executor dask")
        return LocalExecutor(jobs)
    if name == "dask":
        return DaskExecutor(scheduler, jobs)
    raise UsageError(f"unknown executor {name!r} (known: {', '.join(EXECUTORS)})")
