"""Every stated limit on what reportgen reads, in one place (docs/limits.md lists them).

An input over a limit is refused before any work, with one line naming it (exit 2). Each
value says why it is what it is.
"""

MAX_CONFIG_BYTES = 1024 * 1024  # a config file is a few hundred bytes; 1 MiB is far past any real one
MAX_LOGO_BYTES = 2 * 1024 * 1024  # embedded in the HTML and both PDFs as a data: URI
MAX_LOGO_PIXELS = 2048 * 2048  # a 13000² PNG took the PDF from 0.3 to 1.6 GB; a title-page logo is ~500², shown at most ~300 px wide
MAX_TITLE_CHARS = 300  # the title is set large on the title page and in every running header
MAX_TEXT_CHARS = 1000  # subtitle, author, course, institution: one line or two on the title page
MAX_KEYWORDS = 50  # PDF and HTML metadata
MAX_PATH_BYTES = 4096  # PATH_MAX on Linux; each folder name is checked against NAME_MAX as well
MAX_RESULTS_BYTES = 64 * 1024 * 1024  # results.json for `diff`: a standard build's is about 1 MiB
MAX_CACHE_ENTRY_BYTES = 256 * 1024 * 1024  # a run entry or a rendered PDF; the largest is ~10 MiB
MAX_JOURNAL_BYTES = 64 * 1024  # the publish journal lists a handful of file names
MAX_DIFF_DIGITS = 400  # an integer in results.json longer than this is not a measurement
MAX_CLAIMS_BYTES = 4 * 1024 * 1024  # one document's claims file; the largest built-in one is ~150 KiB
MAX_DOCUMENT_BYTES = 4 * 1024 * 1024  # a document's text (Markdown, plain text); the built-in ones are 3-25 KiB
MAX_TOML_DEPTH = 16  # a config, documents.toml or claims file: tables of keys and flat lists (4 deep)
LOCK_WAIT_S = 600.0  # a second build into one output waits this long for the first, then exits 2
