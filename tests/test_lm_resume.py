"""A language-model run that is interrupted keeps the stacks it finished (publish/parts.py) and a rerun
resumes from them; Ctrl-C during its training stops the build cleanly; progress counts its models."""

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from reportgen.experiments.lm import corpus
from reportgen.experiments.lm import run as R
from reportgen.experiments.lm.params import PARAMS
from reportgen.publish.cache import Cache
from reportgen.publish.parts import Parts

RUN_KEY = "0123456789abcdef" * 2


def _quick():
    params = replace(PARAMS["quick"], steps=6, evals=2)  # five stacks: the main configuration's two, three sweeps
    text, vocabulary, _ = corpus.read()
    return params, {s: corpus.encode(text[s], vocabulary, "cpu") for s in corpus.SPLITS}, len(vocabulary)


def _silent(items, label):
    return items


def test_an_interrupted_run_resumes_from_the_stacks_it_finished(tmp_path, monkeypatch):
    """Ctrl-C in the second stack: the first is kept; the rerun reads it back, trains only the other four,
    and its results equal those of a run never interrupted. Once cleared, nothing of the run is left."""
    params, data, vocab = _quick()
    whole = R.train_all(params, 0, "cpu", data, vocab, _silent)
    monkeypatch.setattr(R, "lanes", lambda device, count: 1)  # one stack at a time: which one finished is known
    trained, real = [], R.train_stack

    def interrupted(*args, **kwargs):
        if trained:
            raise KeyboardInterrupt
        trained.append(args[5:9])
        return real(*args, **kwargs)

    parts = Parts(Cache(tmp_path / "cache"), "lm", RUN_KEY)
    monkeypatch.setattr(R, "train_stack", interrupted)
    with pytest.raises(KeyboardInterrupt):
        R.train_all(params, 0, "cpu", data, vocab, _silent, parts)
    kept = sorted(p.name for p in (tmp_path / "cache").glob("lm.part.*"))
    assert len(kept) == 1

    again, labels = [], []

    def counted(*args, **kwargs):
        again.append(args[5:9])
        return real(*args, **kwargs)

    monkeypatch.setattr(R, "train_stack", counted)
    resumed = R.train_all(params, 0, "cpu", data, vocab, lambda items, label: labels.append(label) or items, parts)
    assert resumed == whole
    stacks = sum(len(parts_) for _, _, parts_, _ in R.plan(params, "cpu", vocab))
    assert trained[0] not in again and len(again) == stacks - 1 == 4
    assert "kept from an interrupted run" in labels[0], labels
    parts.clear()
    assert not list((tmp_path / "cache").glob("lm.part.*"))


def test_a_kept_stack_of_another_run_or_configuration_is_not_read(tmp_path):
    """A part is keyed on its run's key and its own description: another of either is a miss."""
    store = Cache(tmp_path / "cache")
    spec = R.stack_spec("cpu", (16, 2, 8, ()), [("scaled", 0.1, 0)])
    Parts(store, "lm", RUN_KEY).store(spec, [{"variant": "scaled", "lr": 0.1, "seed": 0}])
    assert Parts(store, "lm", RUN_KEY).load(spec) == [{"variant": "scaled", "lr": 0.1, "seed": 0}]
    assert Parts(store, "lm", "f" * 32).load(spec) is None
    assert Parts(store, "lm", RUN_KEY).load({**spec, "d_k": 16}) is None
    assert Parts(store, "lm", RUN_KEY).load({**spec, "precision": "tf32"}) is None
    assert spec["precision"] == "fp32" and spec["compile"] == ""


def test_progress_counts_models_as_they_train(monkeypatch):
    """The training loop's items are models, counted step by step as the stacks train, to the total."""
    params, data, vocab = _quick()
    seen = []

    def progress(items, label):
        for item in items:
            seen.append(item)
            yield item

    R.train_all(params, 0, "cpu", data, vocab, progress)
    total = sum(len(cells) for _, cells, _, _ in R.plan(params, "cpu", vocab))
    assert seen == list(range(total))


def test_the_heartbeat_says_models_done_time_left_and_memory():
    from reportgen.progress import Loop, memory_in_use

    line = Loop("lm: training 80 models in 5 stacks", 80, 0.0, 20).line(10.0)
    assert line.startswith("lm: training 80 models in 5 stacks: 20 of 80 done, about 30 s left; ")
    assert memory_in_use().startswith("CPU memory ") and memory_in_use().endswith(" GiB resident")


SLOW_STEPS = """
import sys, time
from reportgen.experiments.lm import optimize
real = optimize.schedule
optimize.schedule = lambda step, steps: time.sleep(0.1) or real(step, steps)  # every step a tenth of a second
from reportgen.cli import command
sys.argv = ["reportgen", *sys.argv[1:]]
command()
"""


@pytest.mark.slow
def test_ctrl_c_during_training_stops_cleanly_and_the_rerun_resumes(tmp_path):
    """SIGINT once the first stack is kept (its training slowed to seconds): exit 130, one line, no
    traceback, nothing published, the kept stack still there; the rerun reads it back and builds."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    args = ["build", "--profile", "quick", "--only", "lm", "--format", "html"]
    proc = subprocess.Popen([sys.executable, "-c", SLOW_STEPS, *args], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not list(tmp_path.glob(".reportgen-cache/lm.part.*")) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        kept = sorted(p.name for p in tmp_path.glob(".reportgen-cache/lm.part.*"))
        assert kept, "no stack was kept"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err.splitlines()[-1], err
    assert not (tmp_path / "output").exists()
    assert set(kept) <= {p.name for p in tmp_path.glob(".reportgen-cache/lm.part.*")}
    again = subprocess.run([sys.executable, "-m", "reportgen", *args], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "kept from an interrupted run" in again.stderr
    assert not list(tmp_path.glob(".reportgen-cache/lm.part.*"))  # the whole run is kept now
