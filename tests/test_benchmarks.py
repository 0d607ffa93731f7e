"""Every benchmark runs at a tiny size and gives what its table in docs/performance.md needs (fast lane).

A renamed function or option in reportgen breaks one of these tests, not a user of the
benchmarks. Sizes are a second or less each; no test asserts a timing.
"""

import inspect
import json
import os
import stat
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # benchmarks/ is a top-level folder of the checkout, not installed
    sys.path.insert(0, str(REPO))

from benchmarks import BENCHMARKS, load  # noqa: E402
from benchmarks.__main__ import main as bench_main, rewrite_docs  # noqa: E402
from benchmarks.pages import MARKERS, block, missing_markers, update  # noqa: E402

from conftest import pdf_supported  # noqa: E402


def roundtrip(result):
    """result as the results file gives it back: JSON has no tuples and string keys only."""
    return json.loads(json.dumps(result))


def check_result(name, result):
    """The fields every consumer reads: seconds for the history, a table for docs/performance.md."""
    result = roundtrip(result)
    assert result["seconds"], name
    assert all(isinstance(s, float) and s > 0 for s in result["seconds"].values()), result["seconds"]
    text = load(name).table(result)
    assert "|---" in text and text.endswith("\n"), text
    return result, text


def fake_program(tmp_path):
    """An executable that records its arguments and exits 0: a stand-in for reportgen or jupyter."""
    calls = tmp_path / "calls.jsonl"
    path = tmp_path / "fake"
    path.write_text(f"#!{sys.executable}\nimport json, sys\n"
                    f"open({str(calls)!r}, 'a').write(json.dumps(sys.argv[1:]) + '\\n')\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path, calls


def build_arguments_parse(argv, tmp_path):
    """Parse `reportgen build ARGS` with reportgen's own CLI, without running it.

    The scratch folder a --config file was in is gone by now: an empty config stands in.
    """
    from reportgen.cli import main

    assert argv[0] == "build", argv
    args = list(argv[1:])
    if "--config" in args:
        config = tmp_path / "stand-in.toml"
        config.write_text("[tool.reportgen]\n")
        args[args.index("--config") + 1] = str(config)
    main.commands["build"].make_context("build", args)


@pytest.mark.parametrize("name", BENCHMARKS)
def test_benchmark_has_the_common_surface(name):
    module = load(name)
    assert set(module.SIZES) == {"quick", "full"}
    for size, kwargs in module.SIZES.items():
        inspect.signature(module.measure).bind(**kwargs)  # a renamed parameter fails here
    assert callable(module.table) and callable(module.main)
    assert module.__doc__.splitlines()[0]


def test_throughput_runs_tiny():
    from benchmarks import throughput

    result, text = check_result("throughput", throughput.measure(runs=1, dims=(16,), profile="quick", samples=400))
    assert 0 < result["ratio"] and result["target"] == throughput.TARGET
    assert "| 16 |" in text and "sweep / randn" in text


def test_training_benchmark_runs_tiny():
    from benchmarks import bench_training

    result, text = check_result("bench_training", bench_training.measure("quick", dk=16, steps=1, runs=1))
    assert result["rows"][0]["models"] > 1 and result["rows"][0]["agree"] == result["rows"][0]["models"]
    assert "speed-up" in text


def test_lm_benchmark_runs_tiny():
    from benchmarks import bench_lm

    result, text = check_result("bench_lm", bench_lm.measure("quick", steps=1, runs=1, configurations=1))
    assert len(result["rows"]) == 1 and result["rows"][0]["models"] > 1
    assert "model-steps/s" in text


@pytest.mark.skipif(not pdf_supported(), reason="WeasyPrint or Pango not available")
def test_pdf_benchmark_renders_tiny():
    from benchmarks import bench_pdf
    from reportgen.render import pdf

    page = "<html><head><title>t</title></head><body><h1>T</h1><p>x</p></body></html>"
    result, text = check_result("bench_pdf", bench_pdf.measure(("quick",), 1, html={"quick": {
        "report": page, "handout": page, "errata-000": page}}))
    assert [r["pdf"] for r in result["profiles"][0]["pdfs"]] == ["report", "handout", "errata-000"]
    assert "| all 3 | 3 |" in text  # the pdf stage's whole work, as a cold build shares it out
    assert result["profiles"][0]["pdfs"][0]["pages"] == 1
    # print_html replaces pdf.pdfs with a function of the same parameters.
    assert list(inspect.signature(pdf.pdfs).parameters)[:3] == ["named", "info", "store"]
    source = inspect.getsource(bench_pdf.print_html)  # its stand-in is local to it
    others = list(inspect.signature(pdf.pdfs).parameters)[3:]
    assert "**_" in source or all(p in source for p in others), "print_html's stand-in must take pdfs' other arguments"
    html = '<html><head></head><body><section id="appendix"><table></table></section>' \
           '<section id="sources"></section></body></html>'
    assert set(bench_pdf.register_parts(html)) == {"report", "body", "register", "bare register"}


@pytest.mark.slow
def test_pdf_benchmark_captures_a_builds_print_pages(quick_build, tmp_path):
    """bench_pdf.print_html runs a real build with stand-ins for the PDF renders (and for what
    the build does to the PDFs afterwards): it must get every print page back. The session's
    cache makes it a cached build."""
    from benchmarks import bench_pdf

    (tmp_path / "config.toml").write_text(
        f'output = "{tmp_path / "out"}"\nfigures = "{tmp_path / "figures"}"\ncache_dir = "{quick_build.cache}"\n')
    named = bench_pdf.print_html("quick", tmp_path)
    assert {"report", "handout", "errata-000"} <= set(named) and "</main>" in named["report"]


def test_build_benchmark_runs_with_a_stand_in(tmp_path):
    from benchmarks import bench

    fake, calls = fake_program(tmp_path)
    result, text = check_result("bench", bench.measure(1, bench.FULL_CASES, "cpu", str(fake)))
    assert [r["case"] for r in result["cases"]] == list(bench.FULL_CASES)
    assert all(r["rss_mib"][0] > 0 for r in result["cases"])
    assert "within budget" in text
    for argv in map(json.loads, calls.read_text().splitlines()):
        build_arguments_parse(argv, tmp_path)  # every build the benchmark runs is one reportgen accepts


def test_peer_benchmark_runs_with_stand_ins(tmp_path):
    from benchmarks import peer

    fake, calls = fake_program(tmp_path)
    result, text = check_result("peer", peer.measure(1, jupyter=fake, reportgen=fake))
    assert peer.PEER in result["seconds"] and result["cells"] > 0
    assert "× peer" in text
    recorded = [json.loads(line) for line in calls.read_text().splitlines()]
    assert recorded[0][:3] == ["build", "--config", "edit.toml"]  # the edit case's folder, built once first
    assert recorded[1][:2] == ["nbconvert", "--execute"]
    for argv in recorded[2:]:
        build_arguments_parse(argv, tmp_path)
    assert set(peer.TARGETS) <= set(result["seconds"]), "every target names a case the benchmark runs"


def test_peer_notebook_holds_the_documents_cells():
    from benchmarks import peer

    nb = json.loads(peer.NOTEBOOK.read_text(encoding="utf-8"))
    assert nb["nbformat"] == 4 and nb["cells"]
    assert all(c["cell_type"] == "code" and c["source"].strip() for c in nb["cells"])
    if peer.SEEDS.is_dir():  # beside a checkout that has the documents: the copy is current
        assert nb == peer.notebook_from(peer.SEEDS)


def test_entry_point_records_where_it_ran(tmp_path, monkeypatch):
    from benchmarks import throughput

    monkeypatch.setitem(throughput.SIZES, "quick", {"runs": 1, "dims": (8,), "profile": "quick", "samples": 400})
    results = tmp_path / "results.json"
    assert bench_main(["throughput", "--size", "quick", "--results", str(results), "--no-docs"]) == 0
    entry = json.loads(results.read_text())["throughput"]
    env = entry["environment"]
    assert env["commit"] and env["date"] and env["machine"]["cores"] >= 1
    assert {"python", "torch", "reportgen"} <= set(env["versions"])
    if hasattr(os, "getloadavg"):
        assert len(env["load_before"]) == 3 and len(entry["load_after"]) == 3
    page = tmp_path / "performance.md"
    page.write_text((REPO / "docs" / "performance.md").read_text(encoding="utf-8"), encoding="utf-8")
    assert rewrite_docs({"throughput": entry}, page) == ["throughput"]
    assert "| 8 |" in page.read_text(encoding="utf-8")


def test_entry_point_rejects_an_unknown_benchmark(capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench_main(["thruput", "--no-docs"])
    assert exit_info.value.code == 2
    assert "no benchmark thruput" in capsys.readouterr().err


def test_performance_tables_are_the_results_file():
    """Every benchmark has its markers in docs/performance.md, and what is between them is what the
    results file gives."""
    text = (REPO / "docs" / "performance.md").read_text(encoding="utf-8")
    assert missing_markers(text, BENCHMARKS) == []
    results = json.loads((REPO / "benchmarks" / "results.json").read_text(encoding="utf-8"))
    blocks = {n: block(n, e, load(n)) for n, e in results.items() if e["size"] == "full"}
    assert update(text, blocks) == text, \
        "docs/performance.md's tables differ from benchmarks/results.json: python -m benchmarks --docs-only"
    assert "python -m benchmarks" in text


def test_update_refuses_a_page_without_markers():
    with pytest.raises(ValueError, match=MARKERS[0].format(kind="benchmark", name="peer")):
        update("no markers here", {"peer": "table"})


def test_gpu_section_is_the_kept_gpu_files():
    """docs/performance.md's GPU tables are what benchmarks/gpu.py writes from the kept session files (judged today)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gpu_benchmark", REPO / "benchmarks" / "gpu.py")
    gpu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gpu)
    text = (REPO / "docs" / "performance.md").read_text(encoding="utf-8")
    folders = sorted((REPO / "benchmarks" / "gpu").iterdir())
    assert update(text, {"gpu": gpu.table(folders[-1])}) == text, \
        f"docs/performance.md's GPU section differs: .venv/bin/python benchmarks/gpu.py --docs {folders[-1].relative_to(REPO)}"


def test_gpu_plan_is_the_kept_computed_table(tmp_path):
    """benchmarks/gpu/<session>/plan-full.{json,md}: what `gpu.py --plan` computes from the kept measurements and
    today's formulas (a formula or a profile changed: regenerate); every configuration under 80% of the card."""
    import importlib.util
    import shutil

    spec = importlib.util.spec_from_file_location("gpu_benchmark", REPO / "benchmarks" / "gpu.py")
    gpu = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gpu)
    from benchmarks import gpu_plan

    kept = sorted(p.parent for p in (REPO / "benchmarks" / "gpu").glob("*/plan-full.json"))[-1]
    shutil.copytree(kept, tmp_path / kept.name)
    computed = gpu_plan.write_plan(tmp_path / kept.name, gpu.PEAK_TFLOPS, gpu.results_vocab(kept))
    again = f"python benchmarks/gpu.py --plan {kept.relative_to(REPO)}"
    for name in ("plan-full.json", "plan-full.md"):
        assert (tmp_path / kept.name / name).read_text() == (kept / name).read_text(), again
    assert all(r["fits"] for r in computed["rows"]) and computed["full_profile_s"] > 0
    assert set(computed["measured"]) | set(computed["computed"]) >= {k for r in computed["rows"] for k in r} - {
        "width", "heads", "d_k", "models", "q_k"}


@pytest.mark.slow
def test_gpu_script_runs_tiny_on_the_cpu(tmp_path):
    """benchmarks/gpu.py, shrunk, end to end on the CPU: what a GPU session runs blind must not fail there."""
    import subprocess

    def gpu(out, *args):
        done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "gpu.py"), str(out), "--device", "cpu",
                               "--tiny", *args], capture_output=True, text=True, timeout=400)
        assert done.returncode == 0, done.stderr
        return json.loads((out / "gpu.json").read_text())

    whole = gpu(tmp_path / "whole", "--budget", "200")  # precision, throughput, then the check of the profile
    assert set(whole["precision"]["against_fp32"]) == {"tf32", "bf16"} and whole["throughput"]["rows"]
    assert whole["full_check"]["verdicts"] and (tmp_path / "whole" / "lm-full.json.gz").exists()
    cut = gpu(tmp_path / "cut", "--budget", "200", "--slice", "12")  # the stated slice of a 10-minute call
    assert cut["lm_slice"]["steps"] == 12 and cut["full_profile_computed_s"] > 0
    assert (tmp_path / "cut" / "lm-full-slice.json.gz").exists()
    modes = gpu(tmp_path / "modes", "--compare")["compile_modes"]["rows"]  # eager against dynamo's graphs
    assert {r["mode"] for r in modes} == {"eager", "dynamo"} and all(r["max_abs_loss_diff"] < 1e-4 for r in modes)


@pytest.mark.parametrize("name", sorted(BENCHMARKS) + ["gpu", "history"])
def test_every_benchmark_answers_help_as_a_module_and_as_a_file(name):
    """`python -m benchmarks NAME --help` and `python benchmarks/NAME.py --help` both print usage and exit 0
    (the registry's benchmarks, the GPU session's script and the nightly history; environment.py and
    pages.py are their helpers, not commands)."""
    import subprocess

    for command in ([sys.executable, "-m", "benchmarks", name, "--help"],
                    [sys.executable, str(REPO / "benchmarks" / f"{name}.py"), "--help"]):
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "usage" in done.stdout.lower(), (command, done.stderr[-500:])
