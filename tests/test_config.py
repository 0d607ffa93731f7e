"""Configuration precedence: defaults < config file < command-line flags."""

import pytest

from reportgen import config
from reportgen.config import MAX_SEED, BuildConfig
from reportgen.errors import ConfigError
from reportgen.experiments import EXPERIMENTS


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Work in an empty folder, so no pyproject.toml is picked up by accident."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write_pyproject(folder, table):
    (folder / "pyproject.toml").write_text(f"[project]\nname = 'demo'\n\n[tool.reportgen]\n{table}", encoding="utf-8")


def test_defaults_without_any_file(in_tmp):
    """No file, no flags: the dataclass defaults."""
    loaded = config.load(None, {}, EXPERIMENTS)
    assert loaded == BuildConfig()
    assert (loaded.profile, loaded.seed, loaded.cache, loaded.format) == ("standard", 0, True, ("html", "pdf"))


def test_file_overrides_defaults(in_tmp):
    """[tool.reportgen] in ./pyproject.toml overrides the defaults."""
    write_pyproject(in_tmp, 'seed = 5\nprofile = "quick"\noutput = "out"\n')
    loaded = config.load(None, {}, EXPERIMENTS)
    assert (loaded.seed, loaded.profile, loaded.output) == (5, "quick", "out")
    assert loaded.device == "auto"  # untouched keys keep their defaults


def test_cli_overrides_file(in_tmp):
    """A CLI flag beats the file; keys the CLI leaves alone keep the file's value."""
    write_pyproject(in_tmp, 'seed = 5\nprofile = "quick"\n')
    loaded = config.load(None, {"seed": 7}, EXPERIMENTS)
    assert (loaded.seed, loaded.profile) == (7, "quick")


def test_unset_cli_flags_never_override(in_tmp):
    """Flags passed as None (not given) leave the file's values in place."""
    write_pyproject(in_tmp, 'seed = 5\nprofile = "quick"\ncache = false\nquiet = true\nformat = ["html"]\n')
    flags = {"seed": None, "profile": None, "cache": None, "quiet": None, "format": None, "only": None, "device": None}
    loaded = config.load(None, flags, EXPERIMENTS)
    assert (loaded.seed, loaded.profile, loaded.cache, loaded.quiet, loaded.format) == (5, "quick", False, True, ("html",))


def test_false_cli_flag_still_overrides(in_tmp):
    """An explicit False (not None) from the CLI is a value and does override."""
    write_pyproject(in_tmp, "cache = true\n")
    assert config.load(None, {"cache": False}, EXPERIMENTS).cache is False


def test_pyproject_without_table_gives_defaults(in_tmp):
    """./pyproject.toml without [tool.reportgen]: its other tables are ignored."""
    (in_tmp / "pyproject.toml").write_text("[project]\nname = 'demo'\n[tool.other]\nseed = 9\n", encoding="utf-8")
    assert config.load(None, {}, EXPERIMENTS) == BuildConfig()


def test_config_file_without_table_uses_whole_file(in_tmp):
    """--config FILE without [tool.reportgen]: the whole file is the table."""
    path = in_tmp / "settings.toml"
    path.write_text('seed = 3\nprofile = "full"\n', encoding="utf-8")
    loaded = config.load(str(path), {}, EXPERIMENTS)
    assert (loaded.seed, loaded.profile) == (3, "full")


def test_config_file_with_table_uses_only_the_table(in_tmp):
    """--config FILE with [tool.reportgen]: only that table counts."""
    path = in_tmp / "other.toml"
    path.write_text("[project]\nname = 'x'\n[tool.reportgen]\nseed = 11\n", encoding="utf-8")
    assert config.load(str(path), {}, EXPERIMENTS).seed == 11


def test_config_file_replaces_pyproject(in_tmp):
    """With --config, ./pyproject.toml is not read at all."""
    write_pyproject(in_tmp, 'seed = 5\nprofil = "typo that must not be seen"\n')
    path = in_tmp / "settings.toml"
    path.write_text("seed = 8\n", encoding="utf-8")
    assert config.load(str(path), {}, EXPERIMENTS).seed == 8


def test_config_file_then_cli(in_tmp):
    """--config FILE values are still overridden by flags."""
    path = in_tmp / "settings.toml"
    path.write_text('seed = 3\nprofile = "full"\n', encoding="utf-8")
    loaded = config.load(str(path), {"profile": "quick"}, EXPERIMENTS)
    assert (loaded.seed, loaded.profile) == (3, "quick")


def test_dashed_keys_map_to_fields(in_tmp):
    """fail-fast and cache-dir in TOML style map to fail_fast and cache_dir."""
    write_pyproject(in_tmp, 'fail-fast = true\ncache-dir = "c"\n')
    loaded = config.load(None, {}, EXPERIMENTS)
    assert (loaded.fail_fast, loaded.cache_dir) == (True, "c")


@pytest.mark.parametrize("value", ["variance", ["variance"], "variance, variance", " variance ,"])
def test_only_accepts_list_or_comma_string(in_tmp, value):
    """--only accepts a list or a comma-separated string; names are stripped and deduplicated."""
    assert config.load(None, {"only": value}, EXPERIMENTS).only == ("variance",)


def test_format_order_and_duplicates(in_tmp):
    """--format keeps the order given and drops duplicates."""
    assert config.load(None, {"format": "pdf,html,pdf"}, EXPERIMENTS).format == ("pdf", "html")


@pytest.mark.parametrize("seed", [0, 1, MAX_SEED])
def test_seed_bounds_accepted(in_tmp, seed):
    """Seeds 0 … 2**63-1 are accepted."""
    assert config.load(None, {"seed": seed}, EXPERIMENTS).seed == seed


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1, True, 1.5, "3"])
def test_bad_seeds_rejected(in_tmp, seed):
    """Negative, too large, bool, float and string seeds are ConfigErrors with exit code 2."""
    with pytest.raises(ConfigError) as info:
        config.load(None, {"seed": seed}, EXPERIMENTS)
    assert info.value.exit_code == 2
    assert "--seed" in str(info.value)


def test_all_problems_collected(in_tmp):
    """Every problem of file and flags is reported at once, each naming its origin."""
    write_pyproject(in_tmp, 'profil = "quick"\ndevice = "tpu"\n')
    with pytest.raises(ConfigError) as info:
        config.load(None, {"format": "docx"}, EXPERIMENTS)
    problems = info.value.problems
    assert len(problems) == 3
    assert "pyproject.toml" in problems[0] and "profil" in problems[0] and "'profile'" in problems[0]
    assert "device" in problems[1] and "tpu" in problems[1]
    assert problems[2].startswith("--format") and "docx" in problems[2]


def test_unknown_key_without_close_match_lists_known_keys(in_tmp):
    """An unknown key with no near match lists the known keys instead."""
    write_pyproject(in_tmp, "zzzzzz = 1\n")
    with pytest.raises(ConfigError) as info:
        config.load(None, {}, EXPERIMENTS)
    message = str(info.value)
    assert "zzzzzz" in message and "known keys" in message and "profile" in message


def test_invalid_toml_is_config_error(in_tmp):
    """A config file that is not TOML raises ConfigError naming the file."""
    path = in_tmp / "broken.toml"
    path.write_text("seed = \n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        config.load(str(path), {}, EXPERIMENTS)
    assert "broken.toml" in str(info.value) and info.value.exit_code == 2


def test_empty_path_rejected(in_tmp):
    """output must be a non-empty string."""
    with pytest.raises(ConfigError, match="output"):
        config.load(None, {"output": ""}, EXPERIMENTS)


def test_only_checked_against_registry(in_tmp):
    """--only names are checked against the experiments passed in."""
    with pytest.raises(ConfigError, match="variance"):
        config.load(None, {"only": "variance"}, {})


# --- branding: title, subtitle, author, course, institution, logo, keywords ------------------

PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000b49444154789c63f80f040009fb03fdfb5e6b2b0000000049454e44ae426082"
)  # a white pixel: IHDR, IDAT, IEND with their CRCs


def test_branding_keys(in_tmp):
    """The title page keys come from the file, whitespace folded; the logo must exist."""
    (in_tmp / "logo.png").write_bytes(PNG_1PX)
    write_pyproject(in_tmp, 'title = "Attention,\\n  checked"\nauthor = "A. Lecturer"\ncourse = "CS 1"\n'
                            'institution = "Example University"\nsubtitle = "For week 7"\nlogo = "logo.png"\n'
                            'keywords = "attention, softmax"\n')
    loaded = config.load(None, {}, EXPERIMENTS)
    assert loaded.title == "Attention, checked" and loaded.author == "A. Lecturer"
    assert (loaded.course, loaded.institution, loaded.subtitle) == ("CS 1", "Example University", "For week 7")
    assert loaded.logo == "logo.png" and loaded.keywords == ("attention", "softmax")


def test_branding_defaults(in_tmp):
    loaded = config.load(None, {}, EXPERIMENTS)
    assert "√d_k" in loaded.title and loaded.author == "" and loaded.logo == ""


@pytest.mark.parametrize(
    "table, files, words",
    [
        ('title = ""\n', {}, ["title", "non-empty"]),
        ("author = 3\n", {}, ["author", "string"]),
        ('logo = "missing.png"\n', {}, ["logo", "missing.png", "cannot read"]),
        ('logo = "logo.bmp"\n', {"logo.bmp": b"BM"}, ["logo", "not a PNG, JPEG, GIF or SVG"]),
        ('logo = "logo.png"\n', {"logo.png": b"GIF89a\xff\xff\xff\xff"}, ["logo", "65535×65535 pixels"]),
        ('logo = "logo.svg"\n', {"logo.svg": b"<html></html>"}, ["logo", "not a PNG, JPEG, GIF or SVG"]),
        ('titel = "x"\n', {}, ["titel", "did you mean 'title'"]),
    ],
    ids=["empty-title", "author-number", "logo-missing", "logo-type", "logo-not-png", "logo-not-svg", "typo"],
)
def test_branding_errors(in_tmp, table, files, words):
    for name, data in files.items():
        (in_tmp / name).write_bytes(data)
    write_pyproject(in_tmp, table)
    with pytest.raises(ConfigError) as info:
        config.load(None, {}, EXPERIMENTS)
    for word in words:
        assert word in str(info.value), str(info.value)


def test_a_logo_that_never_ends_is_refused_before_reading(in_tmp):
    """A FIFO would block and /dev/zero would fill the memory: neither is read."""
    import os

    os.mkfifo(in_tmp / "fifo.png")
    (in_tmp / "zero.png").symlink_to("/dev/zero")
    for name in ("fifo.png", "zero.png"):
        write_pyproject(in_tmp, f'logo = "{name}"\n')
        with pytest.raises(ConfigError, match=f"{name}: is a (FIFO|device), not a regular file"):
            config.load(None, {}, EXPERIMENTS)


@pytest.mark.parametrize("key", ["output", "figures", "cache_dir", "logo"])
def test_a_nul_in_a_path_is_bad_input(in_tmp, key):
    write_pyproject(in_tmp, f'{key} = "a\\u0000b"\n')
    with pytest.raises(ConfigError, match=f"key '{key}': the path holds a NUL character"):
        config.load(None, {}, EXPERIMENTS)


def test_unusable_figures_folder_and_overlong_output_are_refused(in_tmp):
    (in_tmp / "afile").write_text("x")
    with pytest.raises(ConfigError, match="figures: afile cannot be a folder.*set another 'figures' folder"):
        config.load(None, {"figures": "afile"}, EXPERIMENTS)
    with pytest.raises(ConfigError, match="over the file system's limit of 255"):
        config.load(None, {"output": "o" * 300}, EXPERIMENTS)


def test_a_dangling_link_as_output_is_refused_before_any_work(in_tmp):
    """resolve() followed the link to a folder that cannot be made, and the build failed only
    when it published, after all the work, with a hint about free space."""
    (in_tmp / "dangling").symlink_to(in_tmp / "gone")
    with pytest.raises(ConfigError, match=r"output: dangling is a link to .*gone, which does not exist; make that "
                                          r"folder, or choose another --output"):
        config.load(None, {"output": "dangling"}, EXPERIMENTS)
    with pytest.raises(ConfigError, match="dangling is a link"):
        config.load(None, {"output": "dangling/inner"}, EXPERIMENTS)
    (in_tmp / "gone").mkdir()
    config.load(None, {"output": "dangling"}, EXPERIMENTS)  # a link to a folder is a folder


def test_unwritable_output_is_refused(in_tmp):
    """An output path under a file, or on a file system that refuses writes, is a config error."""
    (in_tmp / "afile").write_text("x")
    with pytest.raises(ConfigError, match="afile is a file"):
        config.load(None, {"output": "afile/out"}, EXPERIMENTS)
    with pytest.raises(ConfigError, match="cannot write in /proc"):
        config.load(None, {"output": "/proc/reportgen-out"}, EXPERIMENTS)
