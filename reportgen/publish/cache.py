"""The cache folder: entries stored under their keys (reportgen.publish.keys), each
authenticated before it is read, and checked for the shape reportgen writes.

The folder is input reportgen did not write in this run: an entry is used only when its
header and MAC hold and its payload has the shape of what reportgen stores there.
"""

import base64
import binascii
import datetime
import hashlib
import hmac
import json
import re
from pathlib import Path

from reportgen import inputs, limits
from reportgen.atomic import write_atomic
from reportgen.images import PNG_MAGIC
from reportgen.publish import cachekey

TAG = "CACHEDIR.TAG"
# Cache Directory Tagging Specification (https://bford.info/cachedir/): backup tools skip the
# folder, and reportgen uses it only when it finds this tag (or makes the folder itself).
TAG_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This folder is reportgen's cache; reportgen may replace or delete the entries it wrote here.\n"
)
FORMAT = 4  # entry layout: one header line "reportgen-cache 4 KEY MAC", then the payload's JSON;
# 3 was one JSON object {"format", "key", "mac", "payload"}, parsed whole before its MAC was checked
MAGIC = b"reportgen-cache"
OLDER = (b'{"format": ', b'{"key": ')  # how entries of formats 1 to 3 begin
HEADER = re.compile(rb"reportgen-cache (\d{1,4}) ([0-9a-f]{32}) ([0-9a-f]{64})")
NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,79}")
DIGEST = re.compile(r"[0-9a-f]{32}")
MAX_DEPTH = 64  # deeper JSON than any result reportgen writes is not ours
# Names reportgen gives cache files (reportgen 0.1 wrote no tag; such a folder is adopted).
OURS = re.compile(r"[a-z0-9][a-z0-9_.-]*-[0-9a-f]{32}\.(json|bin|pdf)|\..+\.tmp")


def mac(digest, payload_bytes):
    """HMAC-SHA256 of an entry's format, key and payload bytes under the cache key
    (reportgen.publish.cachekey): what is checked is the bytes as stored, before any parsing."""
    message = MAGIC + b" %d " % FORMAT + digest.encode() + b"\0" + payload_bytes
    return hmac.new(cachekey.current(), message, hashlib.sha256).hexdigest()


def entry_bytes(digest, payload):
    """An entry as stored: the header line (format, key, MAC), then the payload's JSON."""
    body = json.dumps(payload, allow_nan=True).encode()  # its keys in their order: results.json keeps it
    return MAGIC + b" %d %s %s\n" % (FORMAT, digest.encode(), mac(digest, body).encode()) + body


def _authenticated(data, digest):
    """(payload bytes, None) of an entry whose header and MAC hold, else (None, why); why None: a
    plain miss (an entry of another version of reportgen). Nothing here parses the payload."""
    head, newline, body = data.partition(b"\n")
    found = HEADER.fullmatch(head) if newline else None
    if found is None:
        if data.startswith(OLDER):
            return None, None  # reportgen before format 4: one JSON object, never parsed now
        return None, "not an entry reportgen wrote"
    if int(found[1]) != FORMAT:
        return None, None  # written by another version of reportgen: a plain miss
    if found[2].decode() != digest:
        return None, "not an entry of this key"
    if not hmac.compare_digest(found[3], mac(digest, body).encode()):
        return None, "its MAC does not match (not written by reportgen with this cache key)"
    return body, None


def _depth(value, limit=MAX_DEPTH):
    """Nesting depth of a JSON value, stopping early past `limit`."""
    stack, deepest = [(value, 1)], 0
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


class Cache:
    """reportgen's cache folder: entries checked before use, faults turned into warnings.

    An entry that fails its checks is a miss (recomputed, with one warning); a folder that
    cannot be used means building without it; a result that cannot be stored is still used.
    """

    def __init__(self, folder, read=True, warn=None):
        self.folder = Path(folder)
        self.warn = warn or (lambda message: None)
        self._warned = set()
        self.writable = self._keyed() and self._usable()
        self.enabled = read and self.writable  # --no-cache: recompute, then refresh the entries

    def _warn_once(self, kind, message):
        if kind not in self._warned:
            self._warned.add(kind)
            self.warn(message)

    def _keyed(self):
        """Whether the cache key can be had; without it no entry can be trusted or signed."""
        try:
            cachekey.current()
            return True
        except cachekey.NoKey as exc:
            self.warn(f"{exc}; building without the cache; set {cachekey.ENV} or make that folder writable")
            return False

    def _usable(self):
        """Whether the folder is ours: tagged, or created (or empty) now and tagged."""
        folder = self.folder
        try:
            if folder.exists() and not folder.is_dir():
                self.warn(f"cache_dir {folder} is not a folder; building without the cache")
                return False
            if (folder / TAG).is_file():
                return True
            if folder.exists() and not all(OURS.fullmatch(p.name) for p in folder.iterdir()):
                self.warn(f"cache_dir {folder} holds files reportgen did not write (no {TAG}); "
                          "building without the cache; point cache_dir at an empty or new folder")
                return False
            folder.mkdir(parents=True, exist_ok=True)
            write_atomic(folder / TAG, TAG_TEXT)
            return True
        except OSError as exc:
            self.warn(f"cache_dir {folder} is unusable ({exc.strerror or exc}); building without the cache")
            return False

    def _path(self, name, digest, suffix=".json"):
        assert NAME.fullmatch(name) and DIGEST.fullmatch(digest), (name, digest)
        return self.folder / f"{name}-{digest}{suffix}"

    def load(self, name, digest, check=None):
        """The payload stored under (name, digest), or None when missing or invalid.

        `check(payload)` returns a reason the payload is unfit, or None; it runs after the
        entry's own key and content hash are verified.
        """
        if not self.enabled:
            return None
        try:
            data = self._read(self._path(name, digest))  # bounded: the size is checked first
        except FileNotFoundError:
            return None
        except inputs.InputRefused as exc:
            return self._invalid(name, exc.reason)
        body, why = _authenticated(data, digest)  # then the MAC, over the bytes as stored
        if body is None:
            return self._invalid(name, why) if why else None
        try:  # only then the JSON: an entry with a valid MAC is still input, checked field by field
            payload = json.loads(body.decode("utf-8"))
        except UnicodeDecodeError:
            return self._invalid(name, "not UTF-8 text")
        except (ValueError, RecursionError):
            return self._invalid(name, "not JSON")
        if _depth(payload) > MAX_DEPTH:
            return self._invalid(name, "nested deeper than any result")
        try:
            reason = check(payload) if check else None
        except Exception:  # noqa: BLE001 (a check that trips on a malformed field: the entry is unfit)
            reason = "a field of it is malformed"
        if reason:
            return self._invalid(name, reason)
        return payload

    @staticmethod
    def _read(path):
        """An entry's bytes: a regular file of bounded size, a symbolic link never followed."""
        return inputs.read(path, limits.MAX_CACHE_ENTRY_BYTES, follow=False)

    def _invalid(self, name, reason):
        self.warn(f"cache entry for {name} ignored: {reason}; recomputing it")
        return None

    def store(self, name, digest, payload):
        """Save a payload under its key; False (with one warning) when the folder refuses it."""
        if not self.writable:
            return False
        return self._write(self._path(name, digest), entry_bytes(digest, payload))

    def _write(self, path, data):
        try:
            write_atomic(path, data)
            return True
        except OSError as exc:
            self._warn_once("store", f"cannot store in cache_dir {self.folder} ({exc.strerror or exc}); "
                                     "this build's results are used, not cached")
            return False

    def load_bytes(self, name, digest, check=None):
        """A stored file (the rendered PDF) when its recorded hash and `check` agree, else None."""
        meta = self.load(f"{name}.meta", digest)
        if meta is None:
            return None
        try:
            data = self._read(self._path(name, digest, ".bin"))
        except FileNotFoundError:
            return self._invalid(name, "its file is missing")
        except inputs.InputRefused as exc:
            return self._invalid(name, f"its file {exc.reason}")
        if not isinstance(meta, dict) or hashlib.sha256(data).hexdigest() != meta.get("sha256"):
            return self._invalid(name, "its file does not match its hash")
        try:
            reason = check(data) if check else None
        except Exception:  # noqa: BLE001 (as in load: a check that trips means unfit)
            reason = "its file is malformed"
        return self._invalid(name, reason) if reason else data

    def store_bytes(self, name, digest, data):
        """Store a file and its hash; older files of the same name are removed (only ours)."""
        if not self.writable:
            return False
        ok = self._write(self._path(name, digest, ".bin"), data)
        ok = ok and self.store(f"{name}.meta", digest, {"sha256": hashlib.sha256(data).hexdigest()})
        if ok:
            self.prune(name, digest)
        return ok

    def prune(self, name, keep):
        """Remove this cache's older entries of `name`: only files whose names reportgen gives them."""
        pattern = re.compile(rf"{re.escape(name)}(\.meta)?-[0-9a-f]{{32}}\.(json|bin)")
        try:
            for path in self.folder.iterdir():
                if pattern.fullmatch(path.name) and keep not in path.name:
                    path.unlink(missing_ok=True)
        except OSError:
            pass  # an old entry left behind is harmless: it is never read under another key


# --- what a valid entry holds -------------------------------------------------------------

SLUG = re.compile(r"[a-z0-9][a-z0-9_-]{0,79}")
PNG_MAX_SIDE = 8000  # pixels: a report figure at 200 dpi is about 1300 × 600


def check_run(payload):
    """Why a cached run entry is unfit, or None: {computed_at: ISO time, results: object}."""
    if not isinstance(payload, dict) or set(payload) != {"computed_at", "results"}:
        return "not a run entry"
    if not isinstance(payload["results"], dict):
        return "its results are not an object"
    try:
        when = datetime.datetime.fromisoformat(payload["computed_at"])
    except (TypeError, ValueError):
        return "its time stamp is not an ISO date"
    if when.tzinfo is None or not 1970 <= when.year <= 9999:
        return "its time stamp is out of range"
    return None


def check_figures(payload):
    """Why cached figure entries are unfit, or None: safe slugs, text fields, SVG and PNG data."""
    if not isinstance(payload, list):
        return "not a list of figures"
    slugs = set()
    for entry in payload:
        if not isinstance(entry, dict) or not SLUG.fullmatch(str(entry.get("slug", ""))):
            return "a figure without a safe name"
        if entry["slug"] in slugs:
            return "a figure name used twice"
        slugs.add(entry["slug"])
        if not all(isinstance(entry.get(k), str) for k in ("caption", "alt", "part")):
            return f"figure {entry['slug']} lacks its caption or alt text"
        if "svg" not in entry and "png" not in entry:
            return f"figure {entry['slug']} has neither SVG nor PNG"
        if "svg" in entry and not (isinstance(entry["svg"], str) and entry["svg"].lstrip().startswith(("<?xml", "<svg"))):
            return f"figure {entry['slug']} is not SVG"
        if "png" in entry:
            try:
                png = base64.b64decode(entry["png"], validate=True)
            except (binascii.Error, ValueError, TypeError):
                return f"figure {entry['slug']}'s PNG is not base64"
            if not png.startswith(PNG_MAGIC) or png[12:16] != b"IHDR":
                return f"figure {entry['slug']}'s PNG is not a PNG"
            # The PDF embeds it: a header claiming a vast image (a decompression bomb) is refused.
            width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
            if not (0 < width <= PNG_MAX_SIDE and 0 < height <= PNG_MAX_SIDE):
                return f"figure {entry['slug']}'s PNG claims {width}×{height} pixels"
    return None


def check_pdf(data):
    """Why cached PDF bytes are unfit, or None."""
    if not data.startswith(b"%PDF-") or b"%%EOF" not in data[-1024:]:
        return "not a complete PDF"
    return None
