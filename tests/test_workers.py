"""The one policy of the build's worker processes (reportgen.workers), without starting any."""

from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool

import pytest

from reportgen.workers import Unknown, Workers


class Done:
    """An executor whose jobs end at once with `outcome` (an exception is raised by the job)."""

    def __init__(self, outcome=None, refuse=None):
        self.outcome, self.refuse, self.ended = outcome, refuse, None
        self._processes = {1: Process()}  # where CPython's executor keeps its processes

    def submit(self, fn, *args):
        if self.refuse:
            raise self.refuse
        future = Future()
        future.set_running_or_notify_cancel()  # begun: no longer this process's to take back
        if isinstance(self.outcome, BaseException):
            future.set_exception(self.outcome)
        else:
            future.set_result(fn(*args) if self.outcome is None else self.outcome)
        return future

    def shutdown(self, wait=True, cancel_futures=False):
        self.ended = "waited" if wait and not cancel_futures else "shut down"


class Process:
    terminated = joined = False

    def terminate(self):
        self.terminated = True

    def join(self, timeout=None):
        self.joined = True


def workers_on(executor):
    return Workers(start=lambda processes: executor)


def test_a_worker_result_comes_back():
    pool = workers_on(Done())
    assert pool.result(pool.offload(sum, [1, 2]), lambda: "here") == 3


@pytest.mark.parametrize("crash", [BrokenProcessPool("a worker died"), Unknown("extension")])
def test_a_dead_worker_or_an_unknown_family_is_done_here(crash):
    pool = workers_on(Done(crash))
    assert pool.result(pool.offload(sum, [1, 2]), lambda: "here") == "here"


def test_after_a_dead_worker_everything_is_done_here():
    executor = Done(BrokenProcessPool("a worker died"))
    pool = workers_on(executor)
    pool.result(pool.offload(sum, [1]), lambda: "here")
    executor.outcome = None
    assert pool.offload(sum, [1]) is None
    assert pool.result(None, lambda: "here") == "here"


@pytest.mark.parametrize("refusal", [BrokenProcessPool("a worker died"), OSError("no processes left")])
def test_a_pool_that_cannot_take_a_job_leaves_it_here(refusal):
    pool = workers_on(Done(refuse=refusal))
    future = pool.offload(sum, [1])
    assert future is None and pool.take_back(future)
    assert pool.result(future, lambda: "here") == "here"


def test_a_job_that_fails_fails_as_it_would_here():
    pool = workers_on(Done(MemoryError("out of memory")))
    with pytest.raises(MemoryError):
        pool.result(pool.offload(sum, [1]), lambda: "here")


def test_a_job_no_worker_began_is_taken_back():
    pending = Future()

    class Idle(Done):
        def submit(self, fn, *args):
            return pending

    pool = workers_on(Idle())
    future = pool.offload(sum, [1])
    assert pool.take_back(future) and future.cancelled()
    assert pool.result(future, lambda: "here") == "here"


def test_the_pool_waits_at_a_normal_end_and_ends_at_once_on_an_interrupt():
    executor = Done()
    with workers_on(executor) as pool:
        pool.offload(sum, [1])
    assert executor.ended and not executor._processes[1].terminated

    executor = Done()
    with pytest.raises(KeyboardInterrupt), workers_on(executor) as pool:
        pool.offload(sum, [1])
        raise KeyboardInterrupt
    process = executor._processes[1]
    assert process.terminated and process.joined and executor.ended


def test_no_process_starts_until_a_job_is_offloaded():
    started = []
    with Workers(start=lambda processes: started.append(processes)):
        pass
    assert started == []


def test_a_feeding_thread_waits_for_its_own_job_instead_of_taking_it_back():
    """The experiments' feeder offloads, then waits: it must not cancel the job it just handed over."""
    import threading

    pending = Future()

    class Idle(Done):
        def submit(self, fn, *args):
            return pending if fn is sum else Done.submit(self, fn, *args)

    pool = workers_on(Idle())
    future = pool.offload(sum, [1])
    threading.Timer(0.05, lambda: (pending.set_running_or_notify_cancel(), pending.set_result(1))).start()
    assert pool.result(future, lambda: "here", take_back=False) == 1 and not future.cancelled()


@pytest.mark.slow
def test_workers_outlive_the_thread_that_fed_them():
    """Linux ends a worker when the thread that spawned it ends (PR_SET_PDEATHSIG): the pool is
    started from the build's thread (Workers.ready), so a feeding thread that ends breaks nothing."""
    import threading

    with Workers(processes=1) as pool:
        pool.ready()
        results = []
        feeder = threading.Thread(target=lambda: results.append(pool.result(pool.offload(sum, [1, 2]), lambda: None,
                                                                            take_back=False)))
        feeder.start()
        feeder.join()
        import time

        time.sleep(0.5)  # the end of a spawning thread would have killed the worker by now
        assert results == [3]
        assert pool.result(pool.offload(sum, [3, 4]), lambda: "here", take_back=False) == 7 and not pool.broken
