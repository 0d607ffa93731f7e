"""Lanes: work side by side in threads of this process, for operators that release the GIL.

torch runs an operator on its caller's thread when it has one intra-op thread, so two lanes use two
cores with no process of their own: no worker to spawn, no crash of one to handle, and the numbers do
not depend on which lane did the work. The build's worker processes are reportgen.workers'; this
module is for work inside one experiment (the language model's stacks).
"""

import threading


def in_threads(jobs, work, lanes, progress=None, label=""):
    """`work(job, stop)` for every job, at most `lanes` at a time in threads of this process; results in order.

    For work whose operators release the GIL and run on their caller's thread (torch with one intra-op
    thread): two lanes use two cores with no process of their own, so no worker crash to handle. The
    first exception, or Ctrl-C here, sets `stop` (a threading.Event the work checks) and is raised once
    the lanes have stopped; jobs not begun are not begun.
    """
    import queue

    jobs = list(jobs)
    results, errors = [None] * len(jobs), []
    todo, stop, finished = queue.Queue(), threading.Event(), queue.Queue()
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
            finished.put(i)

    threads = [threading.Thread(target=lane, name=f"reportgen-lane-{n}", daemon=True)
               for n in range(max(1, min(lanes, len(jobs))))]
    for thread in threads:
        thread.start()
    try:
        for _ in (progress or (lambda items, label: items))(range(len(jobs)), label):
            if stop.is_set() and todo.empty() and all(not t.is_alive() for t in threads):
                break
            while True:
                try:
                    finished.get(timeout=0.5)
                    break
                except queue.Empty:
                    if not any(t.is_alive() for t in threads):
                        break
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    if errors:
        raise errors[0]
    return results
