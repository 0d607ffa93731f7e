"""Lanes: work side by side in threads of this process, for operators that release the GIL.

torch runs an operator on its caller's thread when it has one intra-op thread, so two lanes use two
cores with no process of their own: no worker to spawn, no crash of one to handle, and the numbers do
not depend on which lane did the work. The build's worker processes are reportgen.workers'; this
module is for work inside one experiment (the language model's stacks).
"""

import threading


class Tally:
    """Work done so far, in the units a progress line counts (a model's training), added from any lane."""

    def __init__(self):
        self.done = 0.0
        self._lock = threading.Lock()

    def add(self, units):
        with self._lock:
            self.done += units


POLL = 0.2  # seconds between the calling thread's looks at the lanes (and a chance for Ctrl-C to land)


def in_threads(jobs, work, lanes, progress=None, label="", tally=None, total=None):
    """`work(job, stop)` for every job, at most `lanes` at a time in threads of this process; results in order.

    For work whose operators release the GIL and run on their caller's thread (torch with one intra-op
    thread): two lanes use two cores with no process of their own, so no worker crash to handle. The
    first exception, or Ctrl-C here, sets `stop` (a threading.Event the work checks) and is raised once
    the lanes have stopped; jobs not begun are not begun. `progress(items, label)` counts one item a job
    done, or, with a `tally` the work adds to as it goes, `total` units (models trained, step by step).
    """
    import queue
    import time

    jobs = list(jobs)
    results, errors, ended = [None] * len(jobs), [], []
    todo, stop = queue.Queue(), threading.Event()
    for item in enumerate(jobs):
        todo.put(item)

    def lane():
        while not stop.is_set():
            try:
                i, job = todo.get_nowait()
            except queue.Empty:
                return
            try:
                results[i] = work(job, stop)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread below
                errors.append(exc)
                stop.set()
            ended.append(i)

    threads = [threading.Thread(target=lane, name=f"reportgen-lane-{n}", daemon=True)
               for n in range(max(1, min(lanes, len(jobs))))]
    count = round(total) if tally is not None else len(jobs)

    def done():
        return tally.done if tally is not None else len(ended)

    for thread in threads:
        thread.start()
    try:
        for k in (progress or (lambda items, label: items))(range(count), label):
            while done() < k + 1 - 1e-6 and any(t.is_alive() for t in threads):
                time.sleep(POLL)
            if done() < k + 1 - 1e-6:  # the lanes stopped short: a failure, or told to stop
                break
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    if errors:
        raise errors[0]
    return results
