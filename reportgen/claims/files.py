"""A claims folder's files: which belong to a document, and each read as TOML, bounded."""

import tomllib

from reportgen import inputs, limits
from reportgen.errors import ConfigError


def claim_files(folder, doc):
    """The claims files of one document."""
    path = folder / f"{doc}.toml"
    return [path] if path.is_file() else []


def read(path):
    """A claims file as TOML: bounded, a regular file (a course's folder is input like any other)."""
    try:
        return tomllib.loads(inputs.read_text(path, limits.MAX_CLAIMS_BYTES, way_out="give a claims TOML file"))
    except inputs.InputRefused as exc:
        raise ConfigError(f"claims data: {exc}") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"claims data: cannot read {path}: {exc}") from None
