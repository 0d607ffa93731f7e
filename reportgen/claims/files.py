"""A claims folder's files: which belong to a document, and each read as TOML, bounded."""

import tomllib
from importlib import resources
from pathlib import Path

from reportgen import inputs, limits
from reportgen.errors import ConfigError


def claim_files(folder, doc):
    """The claims files of one document."""
    path = folder / f"{doc}.toml"
    return [path] if path.is_file() else []


def read(path):
    """A claims file as TOML: bounded, a regular file in its folder (a course's folder is input
    like any other: a symbolic link out of it is refused), nested no deeper than any claim."""
    try:
        inputs.inside(path)
        return inputs.depth_checked(tomllib.loads(
            inputs.read_text(path, limits.MAX_CLAIMS_BYTES, way_out="give a claims TOML file")), path)
    except inputs.InputRefused as exc:
        raise ConfigError(f"claims data: {exc}") from None
    except RecursionError:
        raise ConfigError(f"claims data: {path} is nested deeper than {limits.MAX_TOML_DEPTH} levels; "
                          "a claims file is tables of keys and short lists") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"claims data: {path} is not valid TOML ({exc}); fix the file") from None
    except OSError as exc:
        raise ConfigError(f"claims data: cannot read {path}: {exc.strerror or exc}") from None


def default_folder():
    """The package's own claims folder."""
    return Path(str(resources.files("reportgen.claims")))
