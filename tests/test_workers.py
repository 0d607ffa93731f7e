"""The one policy of the build's worker processes (reportgen.workers), without starting any
(but for the few tests that need a real one)."""

from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool

import pytest

from reportgen.jobs import HERE, PDF, RUN, WARM, WORKER, Graph, Job
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
        elif self.outcome is not None:
            future.set_result(self.outcome)
        else:
            try:
                future.set_result(fn(*args))
            except Exception as exc:  # as an executor does: the job's exception is in its future
                future.set_exception(exc)
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


def outcomes(pool, keys, here=lambda x: "here"):
    """{key: its value, or the exception it raised} of a graph of jobs: `here(key)` in this
    process, sum([key, 1]) in a worker."""
    with Graph(pool) as graph:
        graph.add(*(Job(key, lambda key=key: here(key), (sum, [key, 1])) for key in keys))
        return {job.key: future.exception() or future.result() for job, future in graph.run()}


def test_a_worker_result_comes_back():
    done = outcomes(workers_on(Done()), [0, 1, 2])
    assert set(done) == {0, 1, 2} and all(done[x] in ("here", x + 1) for x in done)
    assert any(done[x] == x + 1 for x in done)  # the worker did one


@pytest.mark.parametrize("crash", [BrokenProcessPool("a worker died"), Unknown("extension")])
def test_a_dead_worker_or_an_unknown_family_is_done_here(crash):
    assert outcomes(workers_on(Done(crash)), [0, 1, 2]) == {0: "here", 1: "here", 2: "here"}


def test_after_a_dead_worker_everything_is_done_here():
    executor = Done(BrokenProcessPool("a worker died"))
    pool = workers_on(executor)
    outcomes(pool, [0, 1])
    executor.outcome = None
    assert pool.broken and pool.offload(sum, [1]) is None
    assert outcomes(pool, [0, 1]) == {0: "here", 1: "here"}


@pytest.mark.parametrize("refusal", [BrokenProcessPool("a worker died"), OSError("no processes left")])
def test_a_pool_that_cannot_take_a_job_leaves_it_here(refusal):
    pool = workers_on(Done(refuse=refusal))
    assert pool.offload(sum, [1]) is None
    assert outcomes(pool, [0, 1]) == {0: "here", 1: "here"}


def test_a_job_that_fails_in_a_worker_fails_as_it_would_here():
    with Graph(workers_on(Done(MemoryError("out of memory")))) as graph:
        graph.add(Job("only a worker", None, (sum, [1])))
        [(job, future)] = list(graph.run())
    assert isinstance(future.exception(), MemoryError)


def test_the_pool_ends_its_workers_at_once_at_a_normal_end_and_on_an_interrupt():
    """A done worker is not left to wind its interpreter down (0.6-0.8 s with torch loaded)."""
    executor = Done()
    with workers_on(executor) as pool:
        pool.offload(sum, [1])
    process = executor._processes[1]
    assert process.terminated and process.joined and executor.ended

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


@pytest.mark.slow
def test_workers_outlive_the_thread_that_fed_them():
    """Linux ends a worker when the thread that spawned it ends (PR_SET_PDEATHSIG): the pool is
    started from the build's thread (Workers.ready), so a feeding thread that ends breaks nothing."""
    import threading

    with Workers(processes=1) as pool:
        pool.ready()
        results = []
        feeder = threading.Thread(target=lambda: results.append(pool.offload(sum, [1, 2]).result()))
        feeder.start()
        feeder.join()
        import time

        time.sleep(0.5)  # the end of a spawning thread would have killed the worker by now
        assert results == [3]
        assert pool.offload(sum, [3, 4]).result() == 7 and not pool.broken


# --- the job graph: jobs done once each, here and in the workers at the same time ----------


class Threaded:
    """An executor with one thread as its worker: its jobs run beside this process's."""

    def __init__(self, threads=1):
        from concurrent.futures import ThreadPoolExecutor

        self.pool = ThreadPoolExecutor(max_workers=threads)
        self._processes = {}
        self.submitted = []

    def submit(self, fn, *args):
        self.submitted.append(args)
        return self.pool.submit(fn, *args)

    def shutdown(self, wait=True, cancel_futures=False):
        self.pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def slow_square(x):
    import time

    time.sleep(0.02)
    return x * x


def squares(keys, rank=()):
    return [Job(x, lambda x=x: slow_square(x), (slow_square, x), rank=rank) for x in keys]


def test_the_graph_does_every_job_once_here_and_in_the_worker():
    """This process takes from the front, the worker from the back; each job is done once,
    wherever; the worker is never handed a second job before its first is done (a queued job
    cannot be taken back)."""
    executor = Threaded()
    with workers_on(executor) as pool, Graph(pool) as graph:
        graph.add(*squares(range(20)))
        done = {job.key: future.result() for job, future in graph.run()}
    assert done == {x: x * x for x in range(20)}
    jobs = [args[0] for args in executor.submitted if args]  # (the others: Workers.ready starting the worker)
    assert 0 < len(jobs) < 20  # both did some
    assert 0 not in jobs and 19 in jobs  # this process takes the first, the worker the last


@pytest.mark.parametrize("crash", [BrokenProcessPool("a worker died"), Unknown("extension")])
def test_the_graph_does_here_what_no_worker_can(crash):
    with Graph(workers_on(Done(crash))) as graph:
        graph.add(*(Job(x, lambda x=x: -x, (abs, x)) for x in range(5)))
        done = {job.key: future.result() for job, future in graph.run()}
    assert done == {x: -x for x in range(5)}


def test_a_worker_with_no_job_of_the_first_rank_left_takes_the_next():
    """The figures while the runs go on: once every run is begun, the worker takes lower-ranked
    jobs beside this process instead of waiting idle; run(keys) ends when those keys are done,
    and a later run() finishes the rest, each job once."""
    import time

    executor = Threaded()
    with workers_on(executor) as pool, Graph(pool) as graph:
        graph.add(Job("run", lambda: time.sleep(0.3), (time.sleep, 0.3), rank=(RUN,)))
        graph.add(*(Job(f"figure {i}", lambda: time.sleep(0.05), (time.sleep, 0.05)) for i in range(8)))
        assert [job.key for job, _ in graph.run(["run"])] == ["run"]
        by_worker = len([args for args in executor.submitted if args])
        rest = [job.key for job, _ in graph.run()]
    assert by_worker >= 2  # the worker drew while this process ran (or the reverse)
    assert sorted(rest) == sorted(["run"] + [f"figure {i}" for i in range(8)])


def test_a_jobs_own_failure_is_in_its_future_wherever_it_ran():
    def fail_on_odd(x):
        if x % 2:
            raise ValueError(f"job {x}")
        return x

    with Graph(workers_on(Done())) as graph:
        graph.add(*(Job(x, lambda x=x: fail_on_odd(x), (fail_on_odd, x)) for x in range(6)))
        outcomes = {job.key: future.exception() for job, future in graph.run()}
    assert [job for job, error in sorted(outcomes.items()) if error] == [1, 3, 5]
    assert all(isinstance(outcomes[j], ValueError) for j in (1, 3, 5))


def test_without_a_pool_to_start_everything_is_done_here():
    assert outcomes(workers_on(Done(refuse=OSError("no processes left"))), range(4)) == {x: "here" for x in range(4)}
    assert outcomes(None, range(2)) == {0: "here", 1: "here"}


def test_the_graph_feeds_every_worker_one_job_at_a_time():
    """With several workers, each gets a feeding thread: as many jobs run at once as there are
    workers (and this process), never one queued behind another."""
    import threading
    import time

    running, most, lock = [0], [0], threading.Lock()

    def job(x):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return x

    with Workers(processes=3, start=lambda processes: Threaded(3)) as pool, Graph(pool) as graph:
        graph.add(*(Job(x, lambda x=x: job(x), (job, x)) for x in range(12)))
        done = sorted(j.key for j, _ in graph.run())
    assert done == list(range(12))
    assert most[0] == 4  # three workers and this process


def test_on_one_core_no_worker_starts_and_everything_is_done_here(monkeypatch):
    """A worker on a one-core machine would only take turns with this process."""
    monkeypatch.setattr("os.cpu_count", lambda: 1)

    def no_start(processes):
        raise AssertionError("no worker process should start on one core")

    pool = Workers(start=no_start)
    assert pool.offload(sum, [1]) is None and pool.ready() == []
    assert outcomes(pool, range(4)) == {x: "here" for x in range(4)}


def test_one_job_is_done_here_without_starting_a_worker():
    """A worker starts slower than one job is done here (a rebuild's one PDF)."""
    started = []
    with Graph(Workers(start=lambda processes: started.append(processes))) as graph:
        graph.add(Job("one", lambda: 1, (int, "1")))
        assert [future.result() for _, future in graph.run()] == [1]
    assert started == []


def test_a_job_waits_for_what_it_is_after_and_jobs_added_meanwhile_are_done():
    """A job is ready once every key of its `after` is done; a job done may add others (a
    finished run adds its figures)."""
    order = []
    with Graph(workers_on(Done())) as graph:
        def first():
            order.append("first")
            graph_jobs = [Job("added", lambda: order.append("added"), rank=(RUN,))]
            return graph_jobs

        graph.add(Job("last", lambda: order.append("last"), after=("first", "added"), rank=(RUN, 1)),
                  Job("first", first))
        for job, future in graph.run():
            if job.key == "first":
                graph.add(*future.result())
    assert order == ["first", "added", "last"]


def test_a_key_never_added_is_an_error_not_a_hang():
    with Graph(None) as graph:
        graph.add(Job("waits", lambda: 1, after=("never",)))
        with pytest.raises(RuntimeError, match="never added"):
            list(graph.run())


def test_ranks_decide_who_takes_what_and_listeners_hear_where():
    """The highest rank first, here and in a worker; among equals this process takes the first
    added and a worker the last. Listeners hear each job start and end, and where."""
    import threading
    import time

    executor, events, lock = Threaded(), [], threading.Lock()

    def listen(event):
        with lock:
            events.append((event.what, event.job.key, event.where, event.what == "started"
                           or graph.outcome(event.job.key) is None))  # a job's end heard before its outcome is seen

    with workers_on(executor) as pool, Graph(pool) as graph:
        graph.listen(listen)
        pool.ready()
        graph.add(Job("small", lambda: time.sleep(0.1), (time.sleep, 0.1), rank=(PDF, 1)),
                  Job("large", lambda: time.sleep(0.2), (time.sleep, 0.2), rank=(PDF, 9)),
                  Job("run a", lambda: time.sleep(0.2), (time.sleep, 0.2), rank=(RUN,)),
                  Job("run b", lambda: time.sleep(0.2), (time.sleep, 0.2), rank=(RUN,)))
        list(graph.run())
    started = {key: where for what, key, where, _ in events if what == "started"}
    assert started["run a"] == HERE and started["run b"] == WORKER
    assert {started["large"], started["small"]} == {HERE, WORKER}
    assert sorted(key for what, key, _, _ in events if what == "done") == ["large", "run a", "run b", "small"]
    assert all(unseen for *_, unseen in events)


def test_a_job_only_a_worker_does_waits_for_an_idle_worker_or_is_dropped():
    """Readying the workers for the PDFs: a worker does it when no other job is ready for it;
    a build with no worker drops it (its Future cancelled), and nothing waits for it."""
    executor = Threaded()
    with workers_on(executor) as pool, Graph(pool) as graph:
        graph.add(Job("warm", None, (dict,), rank=(WARM,)), *squares(range(4), rank=(RUN,)))
        done = {job.key: future for job, future in graph.run()}
    assert done["warm"].result() == {} and set(done) == {"warm", 0, 1, 2, 3}
    with Graph(workers_on(Done(refuse=OSError("no processes left")))) as graph:
        graph.add(Job("warm", None, (dict,), rank=(WARM,)), *squares(range(2)))
        done = {job.key: future for job, future in graph.run()}
    assert done["warm"].cancelled() and [done[x].result() for x in (0, 1)] == [0, 1]


def test_matplotlib_gets_one_config_folder_where_its_own_is_not_writable(tmp_path, monkeypatch):
    """With no writable config folder (a read-only home), the build makes one before it spawns
    workers, in the environment they inherit; with one, it leaves Matplotlib alone."""
    import os
    import tempfile

    from reportgen.plotting import shared_config_dir

    monkeypatch.delenv("MPLCONFIGDIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert shared_config_dir() is None and "MPLCONFIGDIR" not in os.environ
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "a-file"))  # not a folder, even for root
    folder = shared_config_dir()
    assert folder and os.environ["MPLCONFIGDIR"] == folder
    assert os.path.dirname(folder) == str(tmp_path) and os.path.basename(folder).startswith("reportgen-matplotlib-")
    assert shared_config_dir() is None  # set already: this process and its workers use it
    monkeypatch.delenv("MPLCONFIGDIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a-file"))  # its font cache has no home either
    assert shared_config_dir() is not None


LEAK_CHECK = """
import atexit, os, sys
from reportgen import workers
def configdir():
    import matplotlib
    return matplotlib.get_configdir()
if __name__ == "__main__":
    pool = workers.pool(1)
    print(pool.submit(configdir).result())
    workers.stop_now(pool)  # as the build ends its workers: their exit handlers do not run
    atexit._run_exitfuncs()  # as reportgen.cli.command does before it leaves
    os._exit(0)
"""


def test_a_build_with_a_read_only_home_leaves_no_matplotlib_folder(tmp_path):
    """Where Matplotlib's own config folder is not writable, the workers use the build's folder,
    and it is gone when the build is: nothing left in the temporary folder."""
    import os
    import subprocess
    import sys

    (tmp_path / "home-file").write_text("")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    (tmp_path / "leak.py").write_text(LEAK_CHECK)
    env = {k: v for k, v in os.environ.items() if k != "MPLCONFIGDIR"}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "home-file"), XDG_CACHE_HOME=str(tmp_path / "home-file"),
               TMPDIR=str(scratch))
    done = subprocess.run([sys.executable, str(tmp_path / "leak.py")], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert os.path.basename(done.stdout.strip()).startswith("reportgen-matplotlib-")
    assert list(scratch.iterdir()) == []


def test_a_signal_another_thread_takes_waits_for_the_end_of_a_held_section():
    """Python runs a handler on the main thread even when the kernel gave the signal to another
    thread, so the signal mask alone let Ctrl-C land inside a worker's spawn (the worker then
    printed a traceback for its closed pipe). Inside held() the handler notes it; the section
    raises it as it ends."""
    import os
    import signal
    import threading
    import time

    from reportgen import signals

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers need the main thread")
    reached, go, sent = [], threading.Event(), threading.Event()

    def send():  # a thread started before the section: it does not block the signals (a feeder)
        go.wait()
        os.kill(os.getpid(), signal.SIGINT)
        sent.set()

    sender = threading.Thread(target=send)
    sender.start()
    with signals.installed():
        with pytest.raises(KeyboardInterrupt):
            with signals.held():
                go.set()
                sent.wait(5)
                for _ in range(100):  # bytecode for the interpreter to run the handler between
                    time.sleep(0.001)
                reached.append("end of the section")
        assert reached == ["end of the section"]
        assert signal.SIGINT in signals.taken()
    sender.join()


def test_stopping_a_pool_whose_manager_thread_is_stuck_does_not_hang(monkeypatch):
    """A worker ended while sending a PDF leaves half a message in the result pipe: the executor's
    manager thread waits for the rest for ever. A Ctrl-C'd build once hung there until a second
    Ctrl-C; stop_now waits a bounded time for that thread, then lets the command leave."""
    import threading
    import time

    from reportgen import workers

    stuck = threading.Event()

    class StuckPool:  # what CPython's executor looks like to stop_now, its manager thread in recv()
        _processes = {}
        _pending_work_items = {}

        def __init__(self):
            self._executor_manager_thread = threading.Thread(target=stuck.wait, daemon=True)
            self._executor_manager_thread.start()

        def shutdown(self, wait=True, cancel_futures=False):
            manager, self._executor_manager_thread = self._executor_manager_thread, None  # as CPython's does
            if wait:
                manager.join()

    joined = []
    real_join = threading.Thread.join

    def join(thread, timeout=None):
        joined.append(timeout)
        return real_join(thread, timeout)

    monkeypatch.setattr(threading.Thread, "join", join)
    monkeypatch.setattr(workers, "MANAGER_WAIT", 0.2)
    start = time.monotonic()
    try:
        workers.stop_now(StuckPool())
        assert time.monotonic() - start < 2
        assert joined == [0.2]  # it did wait, for as long as it may
    finally:
        stuck.set()


def test_stopping_a_real_pool_waits_for_its_manager_thread():
    """With a real executor the manager thread is gone when stop_now returns (shutdown() forgets
    it whether it waits or not: stop_now must take it first)."""
    from reportgen import workers

    pool = workers.pool(1)
    assert pool.submit(int, "7").result() == 7
    manager = pool._executor_manager_thread  # noqa: SLF001 (CPython's)
    workers.stop_now(pool)
    assert manager is not None and not manager.is_alive()


def slow_label(label, seconds):
    import time

    time.sleep(seconds)
    return label


@pytest.mark.parametrize("keys", [range(6), [0]])
def test_a_job_a_worker_began_early_is_waited_for_and_nothing_queues_behind_it(keys):
    """A sheet's PDF added while the other pages are laid out: a worker that is up begins it at
    once; run yields it with the rest, and its worker takes no other job until it is done, so
    while it is busy this process does every job (none waits in the executor's queue behind it)."""
    executor = Threaded()
    with Workers(processes=1, start=lambda processes: executor) as pool, Graph(pool) as graph:
        pool.ready()
        graph.add(Job("sheet", lambda: slow_label("sheet", 0.3), (slow_label, "sheet", 0.3)))
        graph.add(*squares(keys))
        done = {job.key: future.result() for job, future in graph.run()}
    assert done == {"sheet": "sheet", **{x: x * x for x in keys}}
    assert [args for args in executor.submitted if args] == [("sheet", 0.3)]


@pytest.mark.parametrize("keys", [range(3), [0]])
def test_a_job_began_early_that_its_worker_lost_is_done_here(keys):
    pool = workers_on(Done(BrokenProcessPool("a worker died")))
    pool.ready()
    with Graph(pool) as graph:
        graph.add(Job("b", lambda: 4, (abs, -4)))
        graph.add(*(Job(x, lambda x=x: -x, (abs, x)) for x in keys))
        done = {job.key: future.result() for job, future in graph.run()}
    assert done == {"b": 4, **{x: -x for x in keys}}


def test_a_busy_worker_does_not_keep_another_from_the_other_jobs():
    """With two workers and one busy with a job begun early, the other takes jobs at once."""
    import time

    started = {}

    def job(name, seconds):
        started[name] = time.perf_counter()
        time.sleep(seconds)
        return name

    with Workers(processes=2, start=lambda processes: Threaded(2)) as pool, Graph(pool) as graph:
        pool.ready()
        graph.add(Job("sheet", lambda: job("sheet", 0.5), (job, "sheet", 0.5), rank=(PDF, 9)))
        time.sleep(0.05)
        begin = time.perf_counter()
        graph.add(*(Job(name, lambda name=name: job(name, 0.2), (job, name, 0.2)) for name in ("here", "a", "b")))
        done = {j.key for j, _ in graph.run()}
    assert done == {"sheet", "here", "a", "b"}
    assert min(started["a"], started["b"]) - begin < 0.15  # the free worker began one of them at once


def test_in_threads_keeps_order_and_stops_the_other_lanes_on_a_failure():
    """Results come back in job order; the first failure stops the other lanes and is raised here."""
    import time

    from reportgen.experiments.lanes import in_threads

    assert in_threads([3, 1, 2], lambda job, stop: job * 10, lanes=2) == [30, 10, 20]
    seen = []

    def work(job, stop):
        if job == 0:
            time.sleep(0.2)  # job 1 has begun in the other lane by now
            raise ValueError("job 0 failed")
        for _ in range(200):  # a long job that checks its stop flag, as a training loop does each step
            if stop.is_set():
                seen.append(job)
                return None
            time.sleep(0.01)
        return job

    with pytest.raises(ValueError, match="job 0 failed"):
        in_threads([0, 1, 2, 3], work, lanes=2)
    assert seen == [1]  # the lane beside the failure stopped; jobs 2 and 3 never began
