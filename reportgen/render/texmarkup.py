"""Simple LaTeX set as HTML markup, for print: letters, scripts, roots, operators and symbols.

WeasyPrint draws an SVG formula glyph by glyph in Python (a fortieth of a second each); most
of the report's inline formulas are d_k, √d_k or q·k, which markup sets as well, as text.
reportgen.render.mathtex uses this for an inline formula in print, and draws anything beyond
the subset (fractions, sums, big delimiters) as SVG.
"""

import re

from markupsafe import Markup, escape

SYMBOLS = {
    r"\cdot": "·", r"\times": "×", r"\sim": " ∼ ", r"\approx": " ≈ ", r"\le": " ≤ ", r"\leq": " ≤ ",
    r"\ge": " ≥ ", r"\geq": " ≥ ", r"\neq": " ≠ ", r"\to": " → ", r"\infty": "∞", r"\partial": "∂",
    r"\top": "⊤", r"\ll": " ≪ ", r"\gg": " ≫ ", r"\pm": "±", r"\propto": " ∝ ", r"\ldots": "…",
    r"\dots": "…", r"\,": "\u2009", r"\;": " ", r"\ ": " ", r"\|": "‖", r"\{": "{", r"\}": "}",
}
GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "eta": "η", "theta": "θ",
    "lambda": "λ", "mu": "μ", "pi": "π", "sigma": "σ", "tau": "τ", "phi": "φ",
    "Delta": "Δ", "Sigma": "Σ", "Theta": "Θ", "Phi": "Φ",
}
BINARY = {"=": " = ", "-": " − ", "+": " + ", "<": " < ", ">": " > ", ",": ", "}
OPERATORS = ("ln", "log", "exp", "max", "min", "softmax", "arg", "sin", "cos")
LETTERS = {"mathbb": {"E": "𝔼", "R": "ℝ", "N": "ℕ"}}  # in DejaVu Sans (its script letters are not)
_TOKEN = re.compile(r"\\[A-Za-z]+|\\[,; |{}]|[A-Za-z]|\d+(?:\.\d+)?|\s+|[{}_^]|[-+=/()\[\],.:;|<>!'*]")


class _Unsupported(Exception):
    """A construct the markup does not set (fractions, sums, big delimiters): draw it as SVG."""


def simple_markup(tex):
    """HTML markup for a LaTeX formula of the simple kind, or None (then it is drawn as SVG)."""
    tokens = _TOKEN.findall(tex)
    if "".join(tokens) != tex:
        return None  # a character outside the subset
    try:
        out, end = _seq(tokens, 0)
    except (_Unsupported, IndexError, ValueError):
        return None
    if end != len(tokens):
        return None
    # A short formula never breaks across lines; a long one (a quoted derivation) may, at its spaces.
    return Markup('<span class="{}">{}</span>').format("m" if len(tokens) <= 16 else "m wrap", out)


def _seq(tokens, i, closing=None):
    """Markup of tokens[i:] up to `closing` (a brace), and the index after it."""
    out = Markup("")
    while tokens[i] != closing if closing else i < len(tokens):
        atom, i = _atom(tokens, i)
        while i < len(tokens) and tokens[i] in ("_", "^"):
            tag = "sub" if tokens[i] == "_" else "sup"
            script, i = _atom(tokens, i + 1)
            atom += Markup(f"<{tag}>{{}}</{tag}>").format(script)
        out += atom
    return out, i + 1 if closing else i


def _group(tokens, i):
    if tokens[i] != "{":
        raise _Unsupported
    return _seq(tokens, i + 1, "}")


def _atom(tokens, i):
    token = tokens[i]
    if token == "{":
        return _seq(tokens, i + 1, "}")
    if token.isspace():
        return Markup(""), i + 1
    if len(token) == 1 and token.isalpha():
        return Markup("<i>{}</i>").format(token), i + 1
    if not token.startswith("\\"):
        if token == "-" and (i == 0 or tokens[i - 1] in "({[=,^_"):
            return escape("−"), i + 1  # a sign, not a subtraction
        return escape(BINARY.get(token, token)), i + 1
    name = token[1:]
    if token in SYMBOLS:
        return escape(SYMBOLS[token]), i + 1
    if name in GREEK:
        return (Markup("<i>{}</i>").format(GREEK[name]) if name[0].islower() else escape(GREEK[name])), i + 1
    if name in OPERATORS:
        before = "\u2009" if i and tokens[i - 1] not in "({[" else ""
        return escape(before + name + "\u2009"), i + 1
    if name == "sqrt":
        inner, i = _group(tokens, i + 1)
        return Markup('<span class="sqrt">√<span class="radicand">{}</span></span>').format(inner), i
    if name in ("text", "mathrm", "operatorname"):
        end = tokens.index("}", i + 2)
        if tokens[i + 1] != "{" or "{" in tokens[i + 2 : end]:
            raise _Unsupported
        return escape("".join(tokens[i + 2 : end])), end + 1
    if name == "mathbf":
        inner, i = _group(tokens, i + 1)
        return Markup("<b>{}</b>").format(inner), i
    if name in LETTERS and tokens[i + 1] == "{" and tokens[i + 3] == "}" and tokens[i + 2] in LETTERS[name]:
        return escape(LETTERS[name][tokens[i + 2]]), i + 4
    raise _Unsupported
