"""Fault injection: hostile cache entries, broken folders, interrupted writes and signals.

Each case asserts what a user relies on: no traceback, nothing written earlier lost, the
outputs valid (one set from one build), and the next plain build recovering (exit 0).
"""

import errno
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import EPOCH, describe, invoke, pdf_supported, snapshot, write_placeholder_output

from reportgen import atomic, cache
from reportgen.experiments import EXPERIMENTS
from reportgen.publish import JOURNAL, MANIFEST

HTML = ["build", "--profile", "quick", "--only", "variance", "--format", "html"]


def entry_path(folder, name, digest):
    return Path(folder) / f"{name}-{digest}.json"


def plant(folder, name, digest, payload):
    """A cache entry with a correct key and content hash: what a hostile cache can forge."""
    entry = {"format": cache.FORMAT, "key": digest, "sha256": cache._payload_hash(payload), "payload": payload}
    entry_path(folder, name, digest).write_text(json.dumps(entry))


def variance_figures_digest(warm_dir):
    """The digest of the variance figures entry in a warm cache."""
    (path,) = (warm_dir / ".reportgen-cache").glob("variance.figures-*.json")
    return path.stem.split("-", 1)[1]


def one_set(output):
    """The output folder holds one build's set: every file the manifest names, with its hash."""
    manifest = json.loads((output / MANIFEST).read_text())
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((output / name).read_bytes()).hexdigest() == digest, name
    assert not (output / JOURNAL).exists()
    assert not list(output.glob(".*.staged")) and not list(output.glob(".*.tmp"))
    return manifest


def assert_clean(result, code=0):
    assert result.exit_code == code, describe(result)
    assert "Traceback" not in result.output


# --- hostile and corrupted cache entries ---------------------------------------------------


def test_figure_slug_cannot_escape_the_figures_folder(warm_dir):
    """A cached figure named '../../…' is refused (warning, redrawn); nothing is written outside."""
    digest = variance_figures_digest(warm_dir)
    folder = warm_dir / ".reportgen-cache"
    entries = cache.Cache(folder).load("variance.figures", digest)
    entries[0]["slug"] = "../../escaped"
    plant(folder, "variance.figures", digest, entries)
    result = invoke(HTML, warm_dir)
    assert_clean(result)
    assert "warning: cache entry for variance.figures ignored: a figure without a safe name" in result.stderr
    assert not list(warm_dir.rglob("escaped*")) and not list(warm_dir.parent.rglob("escaped.svg"))


@pytest.mark.skipif(not pdf_supported(), reason="WeasyPrint cannot load here")
def test_cached_svg_cannot_bring_a_local_file_into_the_pdf(warm_dir):
    """An SVG that links a local file renders without it: WeasyPrint fetches only data: URIs."""
    import pypdf

    secret = warm_dir / "secret.svg"
    secret.write_text('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="20">'
                      '<text x="0" y="15">SECRET-7f3a9</text></svg>')
    digest = variance_figures_digest(warm_dir)
    folder = warm_dir / ".reportgen-cache"
    entries = cache.Cache(folder).load("variance.figures", digest)
    entries[0]["svg"] = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
                         f'width="200" height="20"><image href="file://{secret}" xlink:href="file://{secret}" '
                         'width="200" height="20"/></svg>')
    plant(folder, "variance.figures", digest, entries)
    result = invoke(["build", "--profile", "quick", "--only", "variance", "--format", "pdf"], warm_dir)
    assert_clean(result)
    text = "".join(page.extract_text() for page in pypdf.PdfReader(warm_dir / "output" / "report.pdf").pages)
    assert "SECRET-7f3a9" not in text


@pytest.mark.skipif(not pdf_supported(), reason="WeasyPrint cannot load here")
@pytest.mark.parametrize("damage", ["garbage", "folder", "truncated"])
def test_corrupted_cached_pdf_is_never_published(warm_dir, damage):
    """A damaged cached PDF (garbage, a folder, cut short) is rendered anew, never published."""
    args = ["build", "--profile", "quick", "--only", "variance", "--format", "pdf", "-q"]
    assert_clean(invoke(args, warm_dir))
    good = (warm_dir / "output" / "report.pdf").read_bytes()
    (pdf,) = (warm_dir / ".reportgen-cache").glob("report-*.bin")
    if damage == "garbage":
        pdf.write_bytes(b"%PDF-1.7 not really")
    elif damage == "truncated":
        pdf.write_bytes(good[: len(good) // 2])
    else:
        pdf.unlink()
        pdf.mkdir()
    (warm_dir / "output" / "report.pdf").unlink()
    result = invoke(args, warm_dir)
    assert_clean(result)
    assert (warm_dir / "output" / "report.pdf").read_bytes() == good
    assert_clean(invoke(args, warm_dir))  # and the next build is fine too


@pytest.mark.parametrize(
    "payload, reason",
    [
        ({"computed_at": "yesterday", "results": {}}, "time stamp is not an ISO date"),
        ({"computed_at": "0001-01-01T00:00:00+00:00", "results": {}}, "out of range"),
        ({"computed_at": "2024-01-01T00:00:00", "results": {}}, "out of range"),
        ({"computed_at": "2024-01-01T00:00:00+00:00", "results": [1]}, "results are not an object"),
        ({"computed_at": "2024-01-01T00:00:00+00:00", "results": {"a": [[[[[[[[1]]]]]]]] * 1}, "d": 1}, "not a run entry"),
    ],
)
def test_invalid_run_entry_is_recomputed_with_one_warning(warm_dir, payload, reason):
    experiment = EXPERIMENTS["variance"]
    digest = cache.key(experiment, experiment.params["quick"], 0, "cpu/1")
    plant(warm_dir / ".reportgen-cache", "variance", digest, payload)
    result = invoke(HTML, warm_dir)
    assert_clean(result)
    assert "ran 1 of 1, 0 from cache" in result.stdout
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and reason in warnings[0], result.stderr
    assert_clean(invoke(HTML, warm_dir))


def test_deeply_nested_entry_is_a_miss(warm_dir):
    experiment = EXPERIMENTS["variance"]
    digest = cache.key(experiment, experiment.params["quick"], 0, "cpu/1")
    deep = "[" * 100_000 + "]" * 100_000
    entry_path(warm_dir / ".reportgen-cache", "variance", digest).write_text(
        '{"format": 2, "key": "%s", "sha256": "x", "payload": %s}' % (digest, deep))
    result = invoke(HTML, warm_dir)
    assert_clean(result)
    assert "ran 1 of 1, 0 from cache" in result.stdout


# --- folders that are not reportgen's ------------------------------------------------------


def test_cache_dir_with_other_files_is_left_alone(tmp_path):
    """A cache_dir holding a user's files is not used and nothing in it is touched."""
    user = tmp_path / "mine"
    user.mkdir()
    (user / "report-2023.pdf").write_bytes(b"the user's own report")
    (user / "notes.txt").write_text("keep me")
    before = snapshot(user)
    (tmp_path / "pyproject.toml").write_text('[tool.reportgen]\ncache_dir = "mine"\n')
    result = invoke(HTML, tmp_path)
    assert_clean(result)
    assert "building without the cache" in result.stderr
    assert snapshot(user) == before


@pytest.mark.parametrize(
    "settings, words",
    [
        ('output = "out"\ncache_dir = "out"', "'output' (out) and 'cache_dir' (out) overlap"),
        ('output = "out"\nfigures = "out/figs"', "'output' (out) and 'figures' (out/figs) overlap"),
        ('cache_dir = "figures/cache"', "'figures' (figures) and 'cache_dir' (figures/cache) overlap"),
    ],
)
def test_overlapping_folders_are_bad_input(tmp_path, settings, words):
    (tmp_path / "pyproject.toml").write_text(f"[tool.reportgen]\n{settings}\n")
    result = invoke(HTML, tmp_path)
    assert_clean(result, 2)
    assert words in result.stderr
    assert not (tmp_path / "out").exists()


def test_cache_dir_that_is_a_file(tmp_path):
    (tmp_path / "cachefile").write_text("not a folder")
    (tmp_path / "pyproject.toml").write_text('[tool.reportgen]\ncache_dir = "cachefile"\n')
    result = invoke(HTML, tmp_path)
    assert_clean(result)
    assert "is not a folder; building without the cache" in result.stderr
    assert (tmp_path / "cachefile").read_text() == "not a folder"


@pytest.mark.parametrize("err", [errno.EROFS, errno.ENOSPC])
def test_cache_that_refuses_writes_degrades(warm_dir, monkeypatch, err):
    """A read-only or full cache: one warning, the results are used, the report is written."""
    real = atomic.write_atomic
    cache_dir = warm_dir / ".reportgen-cache"

    def refuse(path, data):
        if Path(path).resolve().parent == cache_dir.resolve():
            raise OSError(err, os.strerror(err))
        return real(path, data)

    monkeypatch.setattr(cache, "write_atomic", refuse)
    result = invoke([*HTML, "--seed", "3"], warm_dir)  # a miss: the result must be stored
    assert_clean(result)
    assert "ran 1 of 1" in result.stdout
    assert result.stderr.count("cannot store in cache_dir") == 1
    doc = json.loads((warm_dir / "output" / "results.json").read_text())
    assert doc["experiments"]["variance"]["status"] == "ok" and doc["provenance"]["seed"] == 3


def test_full_output_disk_keeps_the_previous_report(warm_dir, monkeypatch):
    """No space for the new report: one line, exit 1, the previous set untouched; then recovery."""
    before = write_placeholder_output(warm_dir)
    real = atomic.write_atomic
    calls = []

    def full(path, data):
        calls.append(path)
        if Path(path).resolve().parent.name == "output" and len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, data)

    monkeypatch.setattr("reportgen.publish.write_atomic", full)
    result = invoke(HTML, warm_dir)
    assert_clean(result, 1)
    assert "No space left on device" in result.stderr and "previous report there is unchanged" in result.stderr
    assert snapshot(warm_dir / "output") == before
    monkeypatch.undo()
    assert_clean(invoke(HTML, warm_dir))
    one_set(warm_dir / "output")


# --- the output set ------------------------------------------------------------------------


def test_formats_change_as_a_set(warm_dir):
    """--format html after a build with a PDF removes the PDF of the older build."""
    (warm_dir / "output").mkdir()
    (warm_dir / "output" / "report.pdf").write_bytes(b"%PDF-1.7 an older build")
    (warm_dir / "output" / "README.md").write_text("not reportgen's")
    assert_clean(invoke(HTML, warm_dir))
    assert not (warm_dir / "output" / "report.pdf").exists()
    assert (warm_dir / "output" / "README.md").read_text() == "not reportgen's"
    assert set(one_set(warm_dir / "output")["files"]) == {"results.json", "report.html"}


def test_crash_between_renames_is_rolled_forward(warm_dir, monkeypatch):
    """A build killed after committing its set but before every rename: the next build completes it."""
    import reportgen.publish as publish

    assert_clean(invoke(HTML, warm_dir))
    real = os.replace
    seen = []

    def die_after_first(src, dst):
        if str(src).endswith(".staged"):
            seen.append(dst)
        if len(seen) == 2:
            raise SystemExit("killed")  # stands for SIGKILL: nothing after this line runs
        return real(src, dst)

    monkeypatch.setattr(publish.os, "replace", die_after_first)
    with pytest.raises(SystemExit):
        publish.publish(warm_dir / "output", {"results.json": "{}", "report.html": "<p>new</p>"}, "b2")
    monkeypatch.undo()
    assert (warm_dir / "output" / JOURNAL).exists()
    publish.recover(warm_dir / "output")
    manifest = one_set(warm_dir / "output")
    assert manifest["build"] == "b2" and (warm_dir / "output" / "report.html").read_text() == "<p>new</p>"
    assert_clean(invoke(HTML, warm_dir))
    one_set(warm_dir / "output")


def test_staged_files_of_an_uncommitted_build_are_dropped(warm_dir):
    assert_clean(invoke(HTML, warm_dir))
    out = warm_dir / "output"
    before = snapshot(out)
    (out / ".report.html.staged").write_text("half a build")
    (out / ".results.json.abc123.tmp").write_text("half a file")
    from reportgen.publish import recover

    recover(out)
    assert snapshot(out) == before


# --- interrupts ----------------------------------------------------------------------------


@pytest.mark.skipif(not pdf_supported(), reason="WeasyPrint cannot load here")
def test_ctrl_c_during_the_pdf_keeps_every_earlier_file(warm_dir, monkeypatch):
    """Ctrl-C while the PDF renders: exit 130, output and figures exactly as before."""
    from reportgen import report

    assert_clean(invoke(["build", "--profile", "quick", "--only", "variance", "-q"], warm_dir))
    outputs, figures = snapshot(warm_dir / "output"), snapshot(warm_dir / "figures")
    assert any(name.endswith(".png") for name in figures)

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "render_pdf", interrupted)
    (warm_dir / ".reportgen-cache").joinpath("CACHEDIR.TAG").write_text(cache.TAG_TEXT)
    for stale in (warm_dir / ".reportgen-cache").glob("report*"):
        stale.unlink()  # so the PDF must be rendered
    result = invoke(["build", "--profile", "quick", "--only", "variance", "--seed", "5"], warm_dir)
    assert result.exit_code == 130, describe(result)
    assert "interrupted" in result.stderr and "Traceback" not in result.output
    assert snapshot(warm_dir / "output") == outputs
    assert snapshot(warm_dir / "figures") == figures


def _children(pid):
    """Pids of a process's children (Linux /proc)."""
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _start_build(root, *extra):
    env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH}
    return subprocess.Popen([sys.executable, "-m", "reportgen", "build", "--profile", "quick", "--no-cache", *extra],
                            cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for_workers(proc, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kids = _children(proc.pid)
        if kids:
            return kids
        time.sleep(0.2)
    return []


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGKILL, -9)])
def test_signals_to_a_build(tmp_path, sig, code):
    """SIGINT exits 130, SIGTERM 143, both leaving output/ as it was; after any of them, SIGKILL
    included, the drawing workers are gone within seconds and the next build exits 0."""
    before = write_placeholder_output(tmp_path)
    proc = _start_build(tmp_path)
    workers = _wait_for_workers(proc)
    assert workers, "the build started no drawing worker"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert snapshot(tmp_path / "output") == before
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(_alive(w) for w in workers), "drawing workers outlived the build"
    again = subprocess.run([sys.executable, "-m", "reportgen", "build", "--profile", "quick", "--format", "html",
                            "-q"], cwd=tmp_path, env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH},
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    one_set(tmp_path / "output")


# --- edges ---------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["99999999999999999999", "-5", "soon"])
def test_source_date_epoch_out_of_range_is_bad_input(tmp_path, monkeypatch, value):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", value)
    result = invoke(HTML, tmp_path)
    assert_clean(result, 2)
    assert "SOURCE_DATE_EPOCH" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_diff_of_deeply_nested_json_is_one_line(tmp_path):
    from click.testing import CliRunner

    from reportgen.diff_command import diff

    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    result = CliRunner().invoke(diff, [str(deep), str(deep)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1
