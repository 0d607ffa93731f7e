"""Hostile text: what a config file or a claim says reaches the pages as text, never as markup.

Each injection form goes through every place config text reaches the HTML (title,
subtitle, author, course, institution, keywords) and both media of the math typesetter
(MathML on screen; markup and SVG images in print). A page passes when it holds no
script, no event handler, no link or source with a scheme other than data:, and nothing
inside <math> outside the MathML allow-list.
"""

import base64
import os
import shutil
import subprocess
import time
from html.parser import HTMLParser

import pytest

from reportgen import limits
from reportgen import safemarkup
from reportgen.render import mathtex
from tests.conftest import describe, invoke

INJECTIONS = [
    r"$\text{<script>alert(1)</script>}$",
    r"$\text{<img src=x onerror=alert(1)>}$",
    r"$\href{javascript:alert(1)}{x}$",
    r"$\color{red\" onmouseover=\"alert(1)}{x}$",
    r"$\style{background:url(http://example.com/x)}{y}$",
    r"$\text{&lt;script&gt;alert(1)&lt;/script&gt;}$",
    r"$\mathrm{&#60;svg onload=alert(1)&#62;}$",
    r"$\frac{<b onclick=alert(1)>$",
    r"$\text{]]><script>alert(1)</script>}$",
    "<script>alert(1)</script> plain text",
    "\"><svg onload=alert(1)> √d_k",
    "javascript:alert(1) $x$",
]
FIELDS = ("title", "subtitle", "author", "course", "institution")
BAD_ELEMENTS = {"script", "iframe", "object", "embed", "style", "foreignobject", "a", "link", "base", "form"}


def own_scripts():
    """The bodies of the scripts report.html's template writes itself (the contents bar, the
    claims filter): any other script on a page is a problem."""
    import re
    from pathlib import Path

    template = (Path(__file__).resolve().parents[1] / "templates" / "report.html.j2").read_text(encoding="utf-8")
    return {body.strip() for body in re.findall(r"<script>(.*?)</script>", template, flags=re.S)}


class PageCheck(HTMLParser):
    """Everything on a page that could run or fetch, and any element in <math> off the allow-list."""

    def __init__(self):
        super().__init__()
        self.problems, self.math_depth, self.style_ok = [], 0, True
        self.script = None  # the body of the script being read, when in one

    def handle_data(self, data):
        if self.script is not None:
            self.script.append(data)

    def handle_starttag(self, tag, attrs):
        if tag == "math":
            self.math_depth += 1
        elif self.math_depth and tag not in safemarkup.MATHML_ELEMENTS:
            self.problems.append(f"<{tag}> inside <math>")
        if tag == "form" and dict(attrs).get("id") in ("claims-filter", "search") and "action" not in dict(attrs):
            pass  # the claims filter and the search: no action, they submit nowhere
        elif tag == "script" and not attrs and not self.math_depth:
            self.script = []  # ours only if its body is one the template writes (checked at its end)
        elif tag in BAD_ELEMENTS and not (tag in ("style", "a", "link") and self._ours(tag, attrs)):
            self.problems.append(f"<{tag}>")
        for name, value in attrs:
            value = (value or "").strip().lower()
            if name.startswith("on"):
                self.problems.append(f"{name}= on <{tag}>")
            if name in ("href", "src", "xlink:href", "action") and ":" in value.split("/")[0]:
                if not value.startswith(("data:image/", "https://", "http://")) or self.math_depth:
                    self.problems.append(f"{name}={value[:40]} on <{tag}>")
            if self.math_depth and name == "href":
                self.problems.append(f"href inside <math> on <{tag}>")

    def handle_endtag(self, tag):
        if tag == "math":
            self.math_depth -= 1
        if tag == "script" and self.script is not None:
            if "".join(self.script).strip() not in own_scripts():
                self.problems.append("<script>")
            self.script = None

    @staticmethod
    def _ours(tag, attrs):
        """The report's own stylesheet and links (they hold no injected text)."""
        return tag == "style" or dict(attrs).get("href", "").startswith(("#", "report", "results", "errata-", "../",
                                                                          "figures", "https://", "http://"))


def problems(html):
    check = PageCheck()
    check.feed(str(html))
    return check.problems


@pytest.mark.parametrize("text", INJECTIONS)
@pytest.mark.parametrize("medium", ["screen", "print"])
def test_math_typesetting_emits_no_markup(text, medium):
    out = mathtex.inline(text, medium)
    assert problems(out) == [], out
    for src in [part.split('"')[0] for part in str(out).split('src="data:image/svg+xml;base64,')[1:]]:
        svg = base64.b64decode(src).decode()
        assert "script" not in svg.lower() and "javascript" not in svg.lower() and "<a" not in svg


@pytest.mark.parametrize("tex", [r"\text{<script>x</script>}", r"\href{javascript:x}{y}", r"\frac{a", "\\text{\x00}"])
def test_display_formulas_and_quotes_are_safe(tex):
    for medium in ("screen", "print"):
        for out in (mathtex.formula(tex, True, medium), mathtex.quote(tex, medium)):
            assert problems(out) == [], out


@pytest.mark.parametrize("medium", ["screen", "print"])
def test_a_quotes_line_break_tag_breaks_the_line_and_nothing_else_becomes_markup(medium):
    out = str(mathtex.quote('[[8, 5, 8],<br/> [3, 4, 8],<BR >x<br onclick="y"><script>z</script>', medium))
    assert out == ('[[8, 5, 8],<br> [3, 4, 8],<br>x&lt;br onclick=&#34;y&#34;&gt;'
                   '&lt;script&gt;z&lt;/script&gt;')
    assert problems(out) == [], out


@pytest.mark.parametrize("medium", ["screen", "print"])
def test_a_quotes_markdown_bold_and_fences_show_as_the_document_shows_them(medium):
    """002 quotes "**Before Scaling: ...** ``` Original Matrix": bold text and a line break, no
    asterisks or backticks; a bold run holding markup stays escaped text."""
    out = str(mathtex.quote("our matrices: **Before Scaling** ``` Original = [[5]]", medium))
    assert out == "our matrices: <b>Before Scaling</b><br>Original = [[5]]"
    out = str(mathtex.quote('**<img src=x onerror="y">** and x ** 2 ** 3', medium))
    assert out == "<b>&lt;img src=x onerror=&#34;y&#34;&gt;</b> and x ** 2 ** 3"
    assert problems(out) == [], out
    assert "<b>Training</b>" in str(mathtex.quote("| **Training** | unstable for large $d_k$ |", medium))
    # inside a formula ** is the formula's: never bold, never in its alt text
    assert "<b>" not in str(mathtex.quote("scores grow as $2**3 + 4**5$ does", medium))
    assert "<b>" not in str(mathtex.quote(r"$\frac{a**}{b**}$ and $\text{**x**}$", medium))


def test_an_escaped_dollar_is_a_dollar_sign():
    """'cost $5 and $10' typeset '5 and' as math; a claims text writes \\$ for a dollar sign."""
    assert str(mathtex.inline(r"cost \$5 and \$10 total", "print")) == "cost $5 and $10 total"
    assert mathtex.plain(r"\$5 for $d_k$") == "$5 for dₖ"
    assert "<img" in str(mathtex.inline(r"$\frac{a}{b}$ and \$3", "print"))


def test_report_math_still_typesets():
    assert "<msqrt>" in mathtex.inline("the $\\sqrt{d_k}$ scale") and "<mtext>" not in mathtex.inline("$\\sqrt{d_k}$")
    assert "<img" in mathtex.formula(r"\frac{1}{\sqrt{d_k}}", display=True, medium="print")


def test_svg_allow_list_keeps_drawing_and_drops_the_rest():
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="4" '
           'height="4" viewBox="0 0 4 4" onload="alert(1)"><script>alert(1)</script><symbol id="g"><path d="M0 0"/>'
           '</symbol><use xlink:href="#g"/><use href="http://example.com/x.svg#g"/><image href="file:///etc/passwd"/>'
           '<rect style="fill:url(http://example.com/)" width="1"/><foreignObject><p>x</p></foreignObject></svg>')
    out = safemarkup.svg(svg, strict=False)
    assert "<path" in out and 'href="#g"' in out
    for gone in ("script", "onload", "example.com", "image", "passwd", "foreignObject", "style"):
        assert gone not in out
    with pytest.raises(safemarkup.Unsafe):
        safemarkup.svg(svg)
    with pytest.raises(safemarkup.Unsafe):
        safemarkup.svg('<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><svg>&e;</svg>')


def hostile_config(tmp_path, text):
    """A config whose every text setting holds `text` (keywords too); cache and output in tmp_path."""
    lines = [f'{key} = {toml_string(text)}' for key in FIELDS]
    lines.append(f"keywords = [{toml_string(text)}, \"attention\"]")
    lines += [f'{key} = "{tmp_path / key}"' for key in ("output", "figures", "cache_dir")]
    path = tmp_path / "hostile.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def toml_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


RUN = ["build", "--profile", "quick", "--only", "worked", "--format", "html", "-q"]


@pytest.mark.parametrize("text", INJECTIONS[:3] + INJECTIONS[-2:])
def test_hostile_config_text_reaches_the_page_as_text(tmp_path, text):
    result = invoke([*RUN, "--config", hostile_config(tmp_path, text)], tmp_path)
    assert result.exit_code == 0, describe(result)
    html = (tmp_path / "output" / "report.html").read_text(encoding="utf-8")
    assert problems(html) == []
    sheets = sorted((tmp_path / "output").glob("errata-*.html"))
    assert sheets and all(problems(p.read_text(encoding="utf-8")) == [] for p in sheets)
    assert "alert(1)" in html  # shown as text, not dropped silently


@pytest.mark.skipif(shutil.which("chromium") is None and shutil.which("chromium-browser") is None,
                    reason="no headless Chromium on this machine")
def test_no_script_runs_in_a_browser(tmp_path):
    marker = "document.documentElement.setAttribute('data-pwned','yes')"
    text = rf"$\text{{<script>{marker}</script>}}$ <script>{marker}</script> $\href{{javascript:{marker}}}{{x}}$"
    result = invoke([*RUN, "--config", hostile_config(tmp_path, text)], tmp_path)
    assert result.exit_code == 0, describe(result)
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                          (tmp_path / "output" / "report.html").as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    assert "<html" in dom and 'data-pwned="yes"' not in dom


# --- files that are not what they claim: one bounded, non-blocking read ---------------------


def one_line(result, code=2):
    """The command failed with `code` and said why in one line, without a traceback."""
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == code and len(lines) == 1 and "Traceback" not in result.output, describe(result)
    return lines[0]


def plain_config(tmp_path, extra=""):
    path = tmp_path / "plain.toml"
    path.write_text(f'output = "output"\nfigures = "figures"\ncache_dir = "cache"\n{extra}', encoding="utf-8")
    return path


def special_files(tmp_path):
    """A FIFO, a device, and a link to the device: each would block or never end."""
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "zero").symlink_to("/dev/zero")
    return {"fifo": "is a FIFO", "zero": "is a device", "/dev/zero": "is a device"}


@pytest.mark.parametrize("command", ["build", "check", "run worked"])
def test_special_file_as_config_is_refused(tmp_path, command):
    for name, why in special_files(tmp_path).items():
        line = one_line(invoke([*command.split(), "--config", name], tmp_path))
        assert name in line and why in line


def test_config_over_its_limit_is_refused(tmp_path):
    path = plain_config(tmp_path, "# " + "x" * limits.MAX_CONFIG_BYTES + "\n")
    assert "over the limit" in one_line(invoke([*RUN, "--config", path], tmp_path))


def test_special_file_or_huge_number_in_diff_is_one_line(tmp_path):
    special_files(tmp_path)
    good = tmp_path / "good.json"
    good.write_text('{"schema_version": 2, "experiments": {}, "claims": []}')
    variants = {"nonfinite": '{"schema_version": 2, "experiments": {"x": {"nonfinite": 5}}, "claims": []}',
                "digits": '{"schema_version": 2, "n": ' + "9" * 5000 + ', "experiments": {}, "claims": []}',
                "overflow": '{"schema_version": 2, "n": 1e999, "experiments": {}, "claims": []}',
                "nan": '{"schema_version": 2, "n": NaN, "experiments": {}, "claims": []}'}
    for name, text in variants.items():
        (tmp_path / f"{name}.json").write_text(text)
    for name in ["fifo", "zero", *[f"{v}.json" for v in variants]]:
        one_line(invoke(["diff", name, "good.json"], tmp_path))
        one_line(invoke(["diff", "good.json", name, "--json"], tmp_path))


def test_results_over_the_diff_limit_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_RESULTS_BYTES", 100)
    (tmp_path / "a.json").write_text('{"schema_version": 2, "pad": "' + "x" * 200 + '"}')
    assert "over the limit" in one_line(invoke(["diff", "a.json", "a.json"], tmp_path))


def built(tmp_path, config=None):
    result = invoke([*RUN, "--config", config or plain_config(tmp_path)], tmp_path)
    assert result.exit_code == 0 and "Traceback" not in result.output, describe(result)
    return result


@pytest.mark.parametrize("kind", ["fifo", "device", "outside", "folder"])
def test_cache_entry_that_is_no_regular_file_is_recomputed(tmp_path, kind):
    built(tmp_path)
    (entry,) = (tmp_path / "cache").glob("worked-*.json")
    secret = tmp_path / "secret.json"
    secret.write_bytes(entry.read_bytes())
    entry.unlink()
    {"fifo": lambda: os.mkfifo(entry), "device": lambda: entry.symlink_to("/dev/zero"),
     "outside": lambda: entry.symlink_to(secret), "folder": entry.mkdir}[kind]()
    result = built(tmp_path)
    assert result.output.count("cache entry for worked ignored") == 1 and "ran 1 of 1" in result.output
    assert "worked: FAILED" not in result.output
    if kind != "folder":
        assert entry.is_file() and not entry.is_symlink()  # replaced by a real entry: the next build is warm
        assert "ran 0 of 1" in built(tmp_path).output


@pytest.mark.parametrize("kind", ["fifo", "folder", "zero"])
def test_journal_that_is_no_regular_file_is_refused_and_nothing_lost(tmp_path, kind):
    built(tmp_path)
    before = (tmp_path / "output" / "report.html").read_bytes()
    journal = tmp_path / "output" / ".reportgen-swap.json"
    {"fifo": lambda: os.mkfifo(journal), "folder": journal.mkdir, "zero": lambda: journal.symlink_to("/dev/zero")}[kind]()
    line = one_line(invoke([*RUN, "--config", plain_config(tmp_path)], tmp_path))
    assert ".reportgen-swap.json" in line and "remove it" in line
    assert (tmp_path / "output" / "report.html").read_bytes() == before
    journal.rmdir() if kind == "folder" else journal.unlink()
    built(tmp_path)


# --- stated limits and text checked as text -------------------------------------------------


def png_header(width, height):
    """The first bytes of a PNG that claims width × height pixels (all a check should read)."""
    import struct
    import zlib

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))


@pytest.mark.parametrize("name, data, words", [
    ("huge.png", png_header(40000, 40000), "40000×40000 pixels"),
    ("tall.gif", b"GIF89a\xff\x00\xff\xff" + b"\0" * 20, "255×65535 pixels"),
    ("text.svg", b"hello <svg> is what this note is about", "not a PNG, JPEG, GIF or SVG"),
    ("broken.svg", b"<svg><g></svg>", "not a usable SVG"),
    ("renamed.png", b"just text", "not a PNG, JPEG, GIF or SVG"),
])
def test_logo_is_judged_by_its_bytes(tmp_path, name, data, words):
    (tmp_path / name).write_bytes(data)
    line = one_line(invoke([*RUN, "--config", plain_config(tmp_path, f'logo = "{name}"\n')], tmp_path))
    assert words in line and "logo" in line and not (tmp_path / "output").exists()


def test_svg_logo_is_embedded_without_its_script_or_links(tmp_path):
    (tmp_path / "logo.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" '
                                       'onload="alert(1)"><script>alert(2)</script><rect width="5" height="5"/>'
                                       '<image href="https://example.com/x.png"/></svg>')
    built(tmp_path, plain_config(tmp_path, 'logo = "logo.svg"\n'))
    html = (tmp_path / "output" / "report.html").read_text()
    (uri,) = [part.split('"')[0] for part in html.split('src="data:image/svg+xml;base64,')[1:]]
    svg = base64.b64decode(uri).decode()
    assert "<rect" in svg and "alert" not in svg and "example.com" not in svg


@pytest.mark.parametrize("setting, words", [
    ('title = "' + "T" * 1_000_000 + '"', "key 'title': is 1000000 characters, over the limit"),
    ('author = "' + "a" * 5000 + '"', "key 'author': is 5000 characters"),
    ('title = "Bell\\u0007 and \\u001b[31mred"', "key 'title': holds a control character (U+0007)"),
    ('subtitle = "a\\u0000b"', "key 'subtitle': holds a NUL character"),
    ('institution = "\\u202eevil"', "key 'institution': holds a control character (U+202E)"),
    ('keywords = ["ok", "bad\\u001b"]', "key 'keywords': holds a control character (U+001B)"),
    ("keywords = [" + ", ".join(['"k"'] * 60) + "]", "key 'keywords': 60 keywords"),
    ('output = "' + "o" * 300 + '"', "key 'output': the name"),
    ('figures = "' + "/deep" * 900 + '"', "key 'figures': the path is"),
    ('cache_dir = "~nosuchuser4242/c"', "key 'cache_dir': cannot expand '~nosuchuser4242'"),
    ('figures = "f\\u001bx"', "key 'figures': the path holds a control character"),
])
def test_bad_text_is_one_line_before_any_work(tmp_path, setting, words):
    path = tmp_path / "bad.toml"
    path.write_text(setting + '\noutput = "output"\n' * ("output" not in setting), encoding="utf-8")
    started = time.perf_counter()
    line = one_line(invoke([*RUN, "--config", path], tmp_path))
    assert words in line and time.perf_counter() - started < 5
    assert not (tmp_path / "output").exists() and not (tmp_path / ".reportgen-cache").exists()
    assert "\x1b" not in line and "\x07" not in line


def test_tilde_in_a_path_is_the_home_folder(tmp_path, monkeypatch):
    from reportgen import config
    from reportgen.experiments import EXPERIMENTS

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    loaded = config.load(plain_config(tmp_path, ""), {"output": "~/out"}, EXPERIMENTS)
    assert loaded.output == str(tmp_path / "home" / "out")


# --- cache entries authenticated by a key kept outside the cache ---------------------------


def test_edited_cache_entry_with_fixed_up_hash_is_recomputed(tmp_path):
    import hashlib
    import json

    built(tmp_path)
    (path,) = (tmp_path / "cache").glob("worked-*.json")
    head, body = path.read_bytes().split(b"\n", 1)
    payload = json.loads(body)
    payload["results"]["forged"] = 1
    body = json.dumps(payload, sort_keys=True).encode()
    forged = hashlib.sha256(body).hexdigest().encode()  # what an attacker without the key can compute
    path.write_bytes(head.rsplit(b" ", 1)[0] + b" " + forged + b"\n" + body)
    result = built(tmp_path)
    assert result.output.count("its MAC does not match") == 1 and "ran 1 of 1" in result.output
    assert "forged" not in path.read_text()


def test_cache_key_lives_in_the_state_folder_owner_only(tmp_path, monkeypatch):
    from reportgen.publish import cachekey

    monkeypatch.delenv("REPORTGEN_CACHE_KEY")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    built(tmp_path)
    key = tmp_path / "state" / "reportgen" / "cache-key"
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_text().strip()) == 64
    assert "ran 0 of 1" in built(tmp_path).output
    key.write_text("another key\n")  # a cache made under another key is not trusted
    cachekey._cached.cache_clear()
    assert "ran 1 of 1" in built(tmp_path).output


def test_no_usable_key_means_building_without_the_cache(tmp_path, monkeypatch):
    from reportgen.publish import cachekey

    monkeypatch.delenv("REPORTGEN_CACHE_KEY")
    (tmp_path / "state").write_text("a file where the state folder should be")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    cachekey._cached.cache_clear()
    result = built(tmp_path)
    assert result.output.count("building without the cache") == 1


def test_source_date_epoch_never_enters_the_cache(tmp_path, monkeypatch):
    import json

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    built(tmp_path)
    (path,) = (tmp_path / "cache").glob("worked-*.json")
    assert not json.loads(path.read_text().split("\n", 1)[1])["computed_at"].startswith("1970")
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert "ran 0 of 1" in built(tmp_path).output
    assert '"build_time": "1970' not in (tmp_path / "output" / "results.json").read_text()


def test_library_log_lines_go_through_reportgen_and_respect_quiet(monkeypatch):
    import io
    import logging

    from reportgen import liblog
    from reportgen.progress import Progress

    monkeypatch.delenv("COLUMNS", raising=False)  # a width folds the line (xdist's workers set one)
    stream = io.StringIO()
    liblog.route(Progress(quiet=True, stream=stream))
    logger = logging.getLogger("weasyprint")
    logger.warning("Ignored `foo` at 1:2, unknown property")
    for _ in range(3):
        logger.error("Failed to load image at %r: \x1b[31m%s", "data:image/png;base64," + "A" * 2_000_000, "nope")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1 and "\x1b" not in lines[0] and len(lines[0]) < 300 and "Ignored" not in lines[0]


def test_hostile_math_leaves_later_formulas_unchanged():
    """ziamath failing halfway on raw markup changed the width of every later formula."""
    from reportgen.render import formulas

    formula = r"\frac{1}{\sqrt{d_k}}\,q \cdot k"
    formulas.TYPESET.clear()
    before = formulas.svg(formula)
    for text in INJECTIONS:
        mathtex.inline(text, "print")
    formulas.TYPESET.clear()
    assert formulas.svg(formula) == before
