"""Hostile text: what a config file or a claim says reaches the pages as text, never as markup.

Each injection form goes through every place config text reaches the HTML (title,
subtitle, author, course, institution, keywords) and both media of the math typesetter
(MathML on screen; markup and SVG images in print). A page passes when it holds no
script, no event handler, no link or source with a scheme other than data:, and nothing
inside <math> outside the MathML allow-list.
"""

import base64
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from reportgen import mathtex, safemarkup
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


class PageCheck(HTMLParser):
    """Everything on a page that could run or fetch, and any element in <math> off the allow-list."""

    def __init__(self):
        super().__init__()
        self.problems, self.math_depth, self.style_ok = [], 0, True

    def handle_starttag(self, tag, attrs):
        if tag == "math":
            self.math_depth += 1
        elif self.math_depth and tag not in safemarkup.MATHML_ELEMENTS:
            self.problems.append(f"<{tag}> inside <math>")
        if tag in BAD_ELEMENTS and not (tag in ("style", "a", "link") and self._ours(tag, attrs)):
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

    @staticmethod
    def _ours(tag, attrs):
        """The report's own stylesheet and links (they hold no injected text)."""
        return tag == "style" or dict(attrs).get("href", "").startswith(("#", "report", "results", "../",
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
