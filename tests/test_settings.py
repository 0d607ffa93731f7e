"""Each setting is declared once (reportgen/settings.py); the dataclass, checks, flags and docs follow.

docs/configuration.md's tables are checked in tests/test_docs.py."""

import dataclasses
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from reportgen import cli, config, settings
from reportgen.experiments import EXPERIMENTS

ROOT = Path(__file__).resolve().parents[1]


def test_every_setting_is_a_field_with_its_default():
    assert [f.name for f in dataclasses.fields(config.BuildConfig)] == [s.name for s in settings.SETTINGS]
    default = config.BuildConfig()
    assert all(getattr(default, s.name) == s.default for s in settings.SETTINGS)
    assert all(s.check(s.default, EXPERIMENTS) == s.default for s in settings.SETTINGS if s.name != "logo")


@pytest.mark.parametrize("command", settings.ALL)
def test_every_flag_is_an_option_of_its_commands(command):
    """The flags of a command are those its settings declare, plus --config (and its own)."""
    declared = {f for s in settings.SETTINGS if command in s.commands for f in s.flag}
    options = {o for p in cli.main.commands[command].params for o in p.opts}
    assert declared | {"--config"} <= options
    others = {f for s in settings.SETTINGS if command not in s.commands for f in s.flag}
    assert not others & options


def test_branding_is_declared():
    assert settings.BRANDING == ("title", "subtitle", "author", "course", "institution", "logo", "keywords", "url")


NEW = '''
    Setting("dpi", 96, Integer(50, 600), flag=("--dpi",), commands=ALL, help="Raster figure resolution."),
'''


def test_a_new_setting_is_one_declaration(tmp_path):
    """Adding a key to a copy of reportgen touches one line of settings.py: the dataclass gets the
    field, build, run and check the flag, the file its check ("did you mean" included) and
    docs/configuration.md its row and line."""
    copy = tmp_path / "reportgen"
    shutil.copytree(ROOT / "reportgen", copy, ignore=shutil.ignore_patterns("__pycache__"))
    source = (copy / "settings.py").read_text(encoding="utf-8")
    anchor = "\n)\nBY_NAME"
    assert source.count(anchor) == 1
    (copy / "settings.py").write_text(source.replace(anchor, textwrap.dedent(NEW).rstrip().replace(
        "\n", "\n    ") + anchor, 1), encoding="utf-8")
    (tmp_path / "a.toml").write_text("dpi = 700\n")
    (tmp_path / "b.toml").write_text("dpj = 100\n")
    probe = "GENERATE = " + repr(str(ROOT / "docs" / "generate.py")) + textwrap.dedent('''
        import importlib.util

        from click.testing import CliRunner
        from reportgen import cli, config, settings
        from reportgen.errors import ConfigError

        assert config.BuildConfig().dpi == 96
        assert config.load(None, {"dpi": 300}).dpi == 300
        for name in ("build", "run", "check"):
            assert "--dpi" in CliRunner().invoke(cli.main, [name, "--help"]).output
        out = CliRunner().invoke(cli.main, ["build", "--dpi", "10"])
        assert out.exit_code == 2 and "10 is not in the range 50<=x<=600" in out.output, out.output
        for name, words in (("a.toml", "key 'dpi': 700 is out of range 50 … 600"), ("b.toml", "did you mean 'dpi'?")):
            try:
                config.load(name, {})
            except ConfigError as exc:
                assert words in str(exc), str(exc)
            else:
                raise AssertionError(name)
        docs = importlib.util.spec_from_file_location("generate", GENERATE)
        generate = importlib.util.module_from_spec(docs)
        docs.loader.exec_module(generate)
        row = "| `dpi` | `--dpi N` (build, run, check) | `96` | Raster figure resolution. |"
        assert row in generate.settings_table(settings)
        assert 'dpi = 96                       # 50 … 600' in generate.default_config(settings)
        print("ok")
    ''')
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr


BRANDED = '''
title = "Another course's title"
subtitle = "A subtitle"
author = "B. Lecturer"
course = "CS 1, Fall"
institution = "Elsewhere"
keywords = ["other"]
url = "https://example.org/cs1"
'''


def test_changing_the_branding_recomputes_no_experiment(tmp_path, monkeypatch):
    """A build with another title (and every other branding key changed) takes its experiment
    from the cache the first build filled: branding is not in an experiment's cache key."""
    from reportgen.progress import Progress
    from reportgen.publish.cache import Cache
    from reportgen.scheduler import runs

    monkeypatch.chdir(tmp_path)
    common = f'profile = "quick"\nthreads = 1\ncache_dir = "{tmp_path / "cache"}"\n'
    (tmp_path / "plain.toml").write_text(common, encoding="utf-8")
    (tmp_path / "branded.toml").write_text(common + BRANDED, encoding="utf-8")
    seen = []
    for name in ("plain.toml", "branded.toml"):
        cfg = config.load(name, {}, EXPERIMENTS)
        store = Cache(cfg.cache_dir)
        seen += list(runs([EXPERIMENTS["worked"]], cfg, "cpu", Progress(quiet=True), store))
    first, second = seen
    assert second.experiment.name == "worked" and first.error is None
    assert not first.from_cache and second.from_cache
    assert second.results == first.results
    branded = config.load("branded.toml", {}, EXPERIMENTS)
    changed = {s.name for s in settings.SETTINGS if s.branding and getattr(branded, s.name) != s.default}
    assert changed == set(settings.BRANDING) - {"logo"}  # every branding key but the logo (an image file)
