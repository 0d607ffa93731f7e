"""The language model's corpus: the running Python's own standard-library source, read offline.

Every machine that runs reportgen has it, nothing is downloaded, and the file list is pinned:
MODULES is a fixed, sorted list of single-file modules present in every CPython from 3.11 on
(none that 3.12 or 3.13 removed, none that became a package). A pinned file that is missing
is skipped and named in the provenance. Modules, not bytes, are split into train, validation
and test (every tenth module from the fourth on is validation, from the eighth on test), so no
module is seen in training and evaluated. Tokens are bytes; the vocabulary is the set of byte
values the corpus holds (as character-level models on enwik8 do), so bits per byte of the
held-out text are exact. The SHA-256, size and Python version are recorded.
"""

import hashlib
import os
import platform
import sysconfig

MODULES = (
    "abc", "argparse", "ast", "base64", "bdb", "bisect", "calendar", "cmd", "code", "codecs",
    "codeop", "colorsys", "compileall", "configparser", "contextlib", "copy", "copyreg", "csv",
    "dataclasses", "difflib", "dis", "doctest", "enum", "filecmp", "fileinput", "fnmatch",
    "fractions", "ftplib", "functools", "genericpath", "getopt", "getpass", "gettext", "glob",
    "graphlib", "gzip", "hashlib", "heapq", "hmac", "imaplib", "inspect", "io", "ipaddress",
    "keyword", "linecache", "locale", "lzma", "mailbox", "mimetypes", "modulefinder", "netrc",
    "ntpath", "numbers", "opcode", "operator", "optparse", "os", "pdb", "pickle", "pickletools",
    "pkgutil", "platform", "plistlib", "poplib", "posixpath", "pprint", "profile", "pstats", "pty",
    "py_compile", "pyclbr", "pydoc", "queue", "quopri", "random", "reprlib", "rlcompleter", "runpy",
    "sched", "secrets", "selectors", "shelve", "shutil", "signal", "site", "smtplib", "socket",
    "socketserver", "ssl", "stat", "statistics", "stringprep", "struct", "subprocess", "symtable",
    "tabnanny", "tarfile", "tempfile", "textwrap", "threading", "timeit", "token", "tokenize",
    "trace", "traceback", "tracemalloc", "tty", "turtle", "types", "typing", "uuid", "warnings",
    "wave", "weakref", "webbrowser", "zipapp", "zipimport",
)
SPLITS = ("train", "validation", "test")
SEPARATOR = b"\n\n"  # between modules of a split


def split_of(index):
    """The split of the module at `index` of MODULES: a fixed rule, not a random draw."""
    return {3: "validation", 7: "test"}.get(index % 10, "train")


def stdlib_folder():
    return sysconfig.get_paths()["stdlib"]


def read(folder=None):
    """{split: bytes}, the vocabulary (sorted byte values) and the provenance of the corpus."""
    folder = folder or stdlib_folder()
    parts = {s: [] for s in SPLITS}
    names = {s: [] for s in SPLITS}
    missing = []
    digest = hashlib.sha256()
    for i, name in enumerate(MODULES):
        path = os.path.join(folder, name + ".py")
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            missing.append(name)
            continue
        digest.update(name.encode() + b"\0" + data + b"\0")
        parts[split_of(i)].append(data)
        names[split_of(i)].append(name)
    text = {s: SEPARATOR.join(parts[s]) for s in SPLITS}
    vocabulary = sorted(set().union(*(set(t) for t in text.values())))
    provenance = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "sha256": digest.hexdigest(),
        "bytes": sum(len(t) for t in text.values()),
        "split_bytes": {s: len(text[s]) for s in SPLITS},
        "split_modules": {s: len(names[s]) for s in SPLITS},
        "held_out": {s: names[s] for s in SPLITS[1:]},
        "modules": len(MODULES) - len(missing),
        "pinned": len(MODULES),
        "missing": missing,
        "vocabulary": len(vocabulary),
    }
    return text, vocabulary, provenance


def encode(data, vocabulary, device):
    """Bytes as token ids (positions in the sorted vocabulary), a 1-D long tensor."""
    import torch

    table = torch.full((256,), -1, dtype=torch.long)
    table[torch.tensor(vocabulary, dtype=torch.long)] = torch.arange(len(vocabulary))
    raw = torch.frombuffer(bytearray(data), dtype=torch.uint8).long()
    return table[raw].to(device)
