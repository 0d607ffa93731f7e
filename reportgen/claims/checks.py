"""Each claim checked against the families that measure it, before any experiment runs.

The claims loader checks a file on its own; here each claim's family, measure, arguments,
argument values (a d_k on the profile's grid) and claims table are checked against the
declarations the build itself uses (`Experiment.claim_tables`, the measure's signature,
`Measures.grids`). A typo is one line naming the file, the key and the nearest valid choice,
and exit 2; judged, it would have failed its family's chapter with a traceback.
"""

import difflib
import inspect

from reportgen.errors import ConfigError


def nearest(value, choices):
    """"; did you mean 'x'?" for the nearest of `choices` (the nearest number for a number)."""
    choices = list(choices)
    if not choices:
        return ""
    if isinstance(value, (int, float)) and all(isinstance(c, (int, float)) for c in choices):
        return f"; nearest: {min(choices, key=lambda c: (abs(c - value), c))}"
    hint = difflib.get_close_matches(str(value), [str(c) for c in choices], n=1, cutoff=0.5)
    return f"; did you mean '{hint[0]}'?" if hint else f"; one of {_some(choices)}"


def _some(choices, most=8):
    shown = ", ".join(str(c) for c in choices[:most])
    return shown + (", …" if len(choices) > most else "")


def arguments(measure):
    """(required, optional, takes any) argument names of a measure, after its results."""
    try:
        parameters = list(inspect.signature(measure).parameters.values())[1:]
    except (TypeError, ValueError):
        return (), (), True
    anything = any(p.kind == p.VAR_KEYWORD for p in parameters)
    named = [p for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return (tuple(p.name for p in named if p.default is p.empty),
            tuple(p.name for p in named if p.default is not p.empty), anything)


def problems(catalog, families, chosen, profile="standard", folder="claims"):
    """One line per claim that names a family, measure, argument, value or table no build has."""
    documents = set(catalog.documents)
    out = []
    for c in catalog.claims:
        where = f"{folder}/{c.doc}.toml claim {c.id}"
        if c.family not in families:
            out.append(f"{where}: family '{c.family}' is not one of reportgen's{nearest(c.family, families)}")
            continue
        experiment = families[c.family]
        if experiment not in chosen:
            continue  # not run in this build (--only): judged as not measured
        tables = experiment.tables_for(documents)
        if experiment.claim_tables and c.table not in tables:
            out.append(f"{where}: table '{c.table}' is not a claims table of {c.family}"
                       + (f" for these documents{nearest(c.table, tables)}" if tables else
                          " for these documents (it has none; `reportgen list --measures` names them)"))
        if c.measure:
            out += _measure_problems(c, experiment, profile, where)
    return out


def _measure_problems(claim, experiment, profile, where):
    try:
        measures = experiment.measures()
    except Exception:  # noqa: BLE001 (a family that cannot load fails its own section, as it always has)
        return []
    name = claim.measure.split(".", 1)[1]
    if name not in measures:
        return [f"{where}: measure '{name}' is not one of {experiment.name}'s{nearest(name, measures)}"]
    required, optional, anything = arguments(measures[name])
    unknown = [] if anything else [a for a in claim.args if a not in required + optional]
    out = [f"{where}: args: '{a}' is not an argument of {claim.measure}{nearest(a, required + optional)}"
           for a in unknown]
    if not unknown:  # a misspelt argument is the reason one is missing: one line for both
        out += [f"{where}: measure {claim.measure} needs argument '{a}' in args" for a in required
                if a not in claim.args]
    grids = getattr(measures, "grids", {})
    params = experiment.params[profile]
    for a, value in claim.args.items():
        if (name, a) in grids:
            allowed = tuple(grids[name, a](params))
            if value not in allowed:
                out.append(f"{where}: args: {a} = {value!r} is not on the {profile} profile's grid "
                           f"({_some(allowed)}){nearest(value, allowed)}")
    return out


def check(catalog, families, chosen, profile="standard", folder="claims"):
    """ConfigError, one line per problem (at most 20), when any claim names what no build has."""
    found = problems(catalog, families, chosen, profile, folder)
    if found:
        more = [f"… and {len(found) - 20} more"] if len(found) > 20 else []
        raise ConfigError(found[:20] + more)
