"""Every file a build writes, declared once: its name, template and media, what it reads, how many.

reportgen.render.report renders each declaration the build's --format asks for;
reportgen.publish.outputs owns these names in an output folder (and no other file there).
Adding an output is one declaration here and one template in templates/ (CONTRIBUTING,
"Adding an output"); a data file written by code also names its maker in render/report.py.
This module is data and imports nothing of the package.
"""

from dataclasses import dataclass

DOC = "{doc}"  # stands for a document's id in the file names of a per-document output
MEDIA = {"screen": "html", "print": "pdf"}  # a medium and the --format that asks for it
WITHOUT_BUILD = ("build", "cite", "identity")  # the build's id in `meta`: a per-document output names none


@dataclass(frozen=True)
class Output:
    """One output: a data file written by code, or a template laid out for a screen and/or print."""

    name: str  # its id: the key its PDF is cached under (per document: the screen file's stem)
    template: str = ""  # templates/<template>, laid out once per medium; "" for a data file
    screen: str = ""  # its HTML file; "" for none
    print: str = ""  # its PDF; "" for none
    data: str = ""  # a data file code writes (every build writes it, whatever --format asks)
    # The parts of the report's context its template reads ("*": all of them). An output that
    # reads less is rendered again less often: a PDF is cached on its HTML.
    reads: tuple = ("*",)
    per_document: bool = False  # one per document with a checked statement, as `sheet` (no build id in `meta`)
    stamped: bool = False  # the build id set into its PDF after rendering, results.json attached
    sets: tuple = ()  # template variables set true in every medium ("handout")
    screen_sets: tuple = ()  # ... and in the screen medium only ("register": Appendix A in full)

    def media(self, formats):
        """The media of this output the formats ask for, in order: screen, then print."""
        return [medium for medium in ("screen", "print") if getattr(self, medium) and MEDIA[medium] in formats]

    def file(self, medium, doc=""):
        """Its file name in a medium ('screen', 'print' or 'data'), for one document if per document."""
        return getattr(self, medium).replace(DOC, doc)

    def key(self, doc=""):
        """The name its rendered PDF is cached and shared out under: 'report', 'errata-000'."""
        return self.screen.replace(DOC, doc).removesuffix(".html") if self.per_document else self.name


OUTPUTS = (
    Output("results", data="results.json"),
    Output("bibliography", data="report.bib"),
    Output("citation", data="CITATION.cff"),
    Output("report", "report.html.j2", screen="report.html", print="report.pdf", stamped=True,
           screen_sets=("register",)),
    Output("handout", "handout.html.j2", print="report-handout.pdf", stamped=True, sets=("handout",)),
    Output("errata", "errata.html.j2", screen=f"errata-{DOC}.html", print=f"errata-{DOC}.pdf", per_document=True,
           reads=("meta", "info", "level", "verdicts", "formats", "n_documents")),
)


def owned(outputs=OUTPUTS):
    """(the file names an output folder's set may hold, the prefixes of the per-document ones)."""
    names = [getattr(o, m) for o in outputs for m in ("data", "screen", "print") if getattr(o, m)]
    return (tuple(n for n in names if DOC not in n),
            tuple(dict.fromkeys(n.split(DOC, 1)[0] for n in names if DOC in n)))


def by_name(name, outputs=OUTPUTS):
    return next(o for o in outputs if o.name == name)
