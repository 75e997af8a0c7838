"""A store of runs on any fsspec URL (a folder, `s3://bucket/prefix`, ...): each run is a folder
`runs/<ID>/` holding its report (`report.json`), its records (under the name the report gives them)
and `meta.json`, what a reader needs to pick a run without opening its report.

Ids sort by time and never collide, without a lock or a counter: `YYYYMMDDTHHMMSS.mmmZ-<8 hex>`,
the UTC time of the save and 32 random bits. A counter (`NNNN`, pytest-benchmark's way) needs an
atomic create-if-absent to be allocated by two jobs at once, which S3 does not offer; a time prefix
keeps the order, the random part keeps two runs saved in the same millisecond apart (on local disk
the run's folder is also made with an exclusive mkdir, a new id on the unlikely clash).

A run appears only once whole: its files are written first (each a temporary file renamed into
place on local disk; a single PUT, itself atomic, on object stores) and `meta.json` last; a folder
without `meta.json` (a save cut short) is never listed nor chosen. Nothing is ever overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_gameeval.engine.errors import GameEvalError
from pytest_gameeval.engine.safe_io import atomic_write
from pytest_gameeval.engine.untrusted_json import UnfitJSON, parse, unfit_line

META, REPORT = "meta.json", "report.json"
META_SCHEMA = "pytest-gameeval/history-run"
DEFAULT_STORAGE = ".gameeval"


def new_run_id(now: float | None = None) -> str:
    now = time.time() if now is None else now
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now))
    return f"{stamp}.{int(now * 1000) % 1000:03d}Z-{secrets.token_hex(4)}"


def check_name(name: str, what: str) -> str:
    """A run's NAME must be one that --gameeval-compare=NAME and `history compare NAME` can find
    again: not `latest`/`latest-if-any` (they mean the newest run), not a run id, one line."""
    if name in ("latest", "latest-if-any") or is_run_id(name) or any(c in name for c in "\n\r|"):
        raise GameEvalError(f"{what}={name!r}: a run's NAME cannot be latest, latest-if-any, a run id or hold a "
                            "line break or '|' (--gameeval-compare=NAME could never name it); give another NAME")
    return name


def is_run_id(text: str) -> bool:
    return len(text) == 29 and text[8] == "T" and text[19] == "Z" and text[20] == "-"


@dataclass
class StoredRun:
    """One stored run as listed: its id and meta.json (checked)."""

    id: str
    meta: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.meta.get("name") or "")

    @property
    def model(self) -> str:
        return str((self.meta.get("models") or {}).get("evaluated") or "")

    @property
    def commit(self) -> str:
        return str((self.meta.get("git") or {}).get("commit") or "")[:10]

    @property
    def gate_failed(self) -> bool:
        return (self.meta.get("gate") or {}).get("verdict") == "fail"


def _why(e: BaseException) -> str:
    return str(getattr(e, "strerror", None) or f"{type(e).__name__}: {e}").splitlines()[0]


def cause(e: BaseException) -> str:
    """What went wrong with a store, by its true cause: the endpoint, the credentials or the rest
    (botocore's classes are read by name: no import of botocore where no object store is used)."""
    names = {c.__name__ for c in type(e).__mro__}
    if names & {"EndpointConnectionError", "ConnectTimeoutError", "ConnectionClosedError", "ConnectionError"}:
        return f"cannot connect to its endpoint ({_why(e)})"
    if "NoCredentialsError" in names or "PartialCredentialsError" in names:
        return f"no credentials ({_why(e)}; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile)"
    if isinstance(e, NotADirectoryError):
        return f"a part of its path is a file ({_why(e)})"
    if isinstance(e, PermissionError):
        return f"access refused: the credentials are not accepted, or give no right to it ({_why(e)})"
    return f"cannot reach it ({_why(e)})"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class RunStore:
    """The runs under one URL or folder. `label` is how messages name it (the URL as given)."""

    def __init__(self, url: str | Path):
        import fsspec

        self.label = str(url)
        try:
            # a fresh client: a cached one may hold another endpoint or credentials (the environment changed)
            self.fs, root = fsspec.core.url_to_fs(str(url), skip_instance_cache=True)
        except (ImportError, ValueError) as e:
            raise GameEvalError(f"history store {url}: cannot open ({e})") from None
        self.root = str(root).rstrip("/")
        self.local = "file" in (self.fs.protocol if isinstance(self.fs.protocol, tuple) else (self.fs.protocol,))

    # -- where things are -------------------------------------------------------------------------

    def _key(self, run_id: str, name: str = "") -> str:
        return f"{self.root}/runs/{run_id}" + (f"/{name}" if name else "")

    def where(self, run_id: str, name: str = "") -> str:
        """A stored file as messages name it: a local path, or the store's URL and the key below it."""
        if self.local:
            return self._key(run_id, name)
        return self.label.rstrip("/") + f"/runs/{run_id}" + (f"/{name}" if name else "")

    # -- saving -------------------------------------------------------------------------------------

    def save(self, report_path: Path, meta: dict[str, Any]) -> str:
        """Store the report at `report_path` and its records (beside it) as a new run; its id."""
        self.check_writable()  # a path that is no store, a dead endpoint, no bucket: its line, nothing written
        from pytest_gameeval.analysis.report.file import records_beside

        try:
            report_bytes = report_path.read_bytes()
            report = parse(report_bytes)
            records_path = records_beside(report, report_path)
            records_bytes = records_path.read_bytes() if records_path.is_file() else b""
        except (OSError, ValueError) as e:
            raise GameEvalError(f"{report_path}: cannot read the report to save it ({e})") from None
        files = {REPORT: report_bytes}
        if records_bytes:
            files[records_path.name] = records_bytes
        run_id = self._new_folder()
        saved = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        meta = {**meta, "schema": META_SCHEMA, "id": run_id, "saved": saved,
                "files": {name: {"sha256": _sha(data), "bytes": len(data)} for name, data in files.items()}}
        try:
            for name, data in files.items():
                self._put(self._key(run_id, name), data)
            self._put(self._key(run_id, META), (json.dumps(meta, indent=1, sort_keys=True) + "\n").encode())
        except Exception as e:  # an object store's client raises its own errors (botocore's): one line each
            raise GameEvalError(f"{self.where(run_id)}: cannot save the run ({_why(e)})") from None
        return run_id

    def _new_folder(self) -> str:
        for _ in range(5):
            run_id = new_run_id()
            if not self.local:  # object stores have no folders: the id's random part keeps runs apart
                return run_id
            try:
                Path(self._key(run_id)).parent.mkdir(parents=True, exist_ok=True)
                os.mkdir(self._key(run_id))  # exclusive: two runs never share a folder
                return run_id
            except FileExistsError:
                continue
            except OSError as e:
                raise GameEvalError(f"history store {self.label}: cannot write ({e.strerror or e})") from None
        raise GameEvalError(f"history store {self.label}: no free run id after 5 tries")

    def _put(self, key: str, data: bytes) -> None:
        if self.local:
            atomic_write(key, lambda tmp: Path(tmp).write_bytes(data))
        else:
            self.fs.pipe_file(key, data)

    # -- listing ------------------------------------------------------------------------------------

    def runs(self) -> list[StoredRun]:
        """Every whole run, oldest first (an id sorts by the time of its save). A path that is not a
        store (a file, a folder of other things) is an error, never an empty history."""
        try:
            self.fs.invalidate_cache()  # object stores' listings are cached per process: another job may have saved
            if not self._is_store():
                return []
            keys = sorted(self.fs.glob(f"{self.root}/runs/*/{META}"))
            blobs = self.fs.cat(keys) if keys else {}
        except FileNotFoundError:
            return []
        except GameEvalError:
            raise
        except Exception as e:
            raise GameEvalError(f"history store {self.label}: {cause(e)}") from None
        out = []
        for key in keys:
            run_id = key.rstrip("/").split("/")[-2]
            data = blobs.get(key) if isinstance(blobs, dict) else blobs
            out.append(StoredRun(run_id, self._checked_meta(run_id, data)))
        return sorted(out, key=lambda r: r.id)

    def _is_store(self) -> bool:
        """True when the store's path holds runs; False when nothing is there yet (a store of no run,
        on an object store only in a bucket that exists); an error line when it is something else:
        a file, or a folder of other things (a mistyped path must not read as an empty history)."""
        try:
            info = self.fs.info(self.root)
        except FileNotFoundError:
            if not self.local:
                self._check_bucket()
            return False
        if info.get("type") != "directory":
            raise GameEvalError(f"history store {self.label}: it is a file, not a store of runs (a store is a folder "
                                "or a prefix holding runs/): give the store's folder or URL")
        others = sorted(name for name, kind in ((e["name"].rstrip("/").rsplit("/", 1)[-1], e.get("type"))
                                                for e in self.fs.ls(self.root, detail=True))
                        if (name, kind) != ("runs", "directory") and not name.startswith("."))  # .DS_Store
        if others:
            shown = ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")
            raise GameEvalError(f"history store {self.label}: holds other things than runs/ ({shown}): not a store "
                                "of runs; give the store's own folder or URL")
        return True

    def _check_bucket(self) -> None:
        """An object store whose bucket cannot be used is one line naming the true cause: a dead
        endpoint, refused credentials, no such bucket (s3fs's exists() says False for all three)."""
        bucket = self.root.split("/", 1)[0]
        call = getattr(self.fs, "call_s3", None)
        try:
            if call is not None:
                call("head_bucket", Bucket=bucket)
            elif not self.fs.exists(bucket):  # another object store (gs://, az://): its own exists()
                raise FileNotFoundError(bucket)
        except FileNotFoundError:
            raise GameEvalError(f"history store {self.label}: no bucket {bucket!r} there") from None
        except Exception as e:
            raise GameEvalError(f"history store {self.label}: {cause(e)}") from None

    def check_writable(self) -> None:
        """Before a run that will save: a store that cannot be written is one line before play
        (on an object store: its bucket must be there and usable; its permissions to write show
        only at the save)."""
        try:
            self._is_store()  # a file, a folder of other things, a dead endpoint, no bucket: each its line
            if self.local:
                Path(self.root).mkdir(parents=True, exist_ok=True)
                if not os.access(self.root, os.W_OK | os.X_OK):
                    raise PermissionError("not writable")
        except GameEvalError:
            raise
        except OSError as e:
            if not self.local:
                raise GameEvalError(f"history store {self.label}: {cause(e)}") from None
            raise GameEvalError(f"history store {self.label}: cannot write there ({e.strerror or e})") from None
        except Exception as e:
            raise GameEvalError(f"history store {self.label}: {cause(e)}") from None

    def _checked_meta(self, run_id: str, data: Any) -> dict[str, Any]:
        where = self.where(run_id, META)
        try:
            meta = parse(data)
        except UnfitJSON as e:
            raise GameEvalError(unfit_line(e, where, "a stored run's metadata")) from None
        except TypeError as e:
            raise GameEvalError(f"{where}: not valid JSON ({e})") from None
        if not isinstance(meta, dict) or meta.get("schema") != META_SCHEMA:
            raise GameEvalError(f"{where}: not a stored run's metadata (schema {META_SCHEMA!r} expected)")
        if meta.get("id") != run_id:
            raise GameEvalError(f"{where}: names run {meta.get('id')!r}, but lies in the folder of {run_id}")
        if not isinstance(meta.get("games"), dict) or not isinstance(meta.get("files"), dict):
            raise GameEvalError(f"{where}: field 'games' or 'files' is missing or not an object")
        if REPORT not in meta["files"] or any(not isinstance(f, dict) or "/" in n for n, f in meta["files"].items()):
            raise GameEvalError(f"{where}: field 'files' must name {REPORT} and each file's sha256")
        return meta

    def find(self, ref: str, runs: list[StoredRun] | None = None) -> StoredRun:
        """A run by id, unique id prefix, NAME (the newest of that name) or `latest`."""
        runs = self.runs() if runs is None else runs
        if not runs:
            raise GameEvalError(f"history store {self.label}: no stored run")
        if ref == "latest":
            return runs[-1]
        exact = [r for r in runs if r.id == ref]
        named = [r for r in runs if r.name == ref]
        prefixed = [r for r in runs if r.id.startswith(ref)]
        if exact or named:
            return (exact or named)[-1]
        if len(prefixed) == 1:
            return prefixed[0]
        if prefixed:
            more = ", ..." if len(prefixed) > 3 else ""
            raise GameEvalError(f"history store {self.label}: {ref!r} is the start of {len(prefixed)} run ids "
                                f"({', '.join(r.id for r in prefixed[:3])}{more}): give more of it")
        raise GameEvalError(f"history store {self.label}: no run {ref!r} (not an id, id prefix or name; "
                            "`gameeval history list` lists them)")

    # -- reading a run back ------------------------------------------------------------------------------

    def local_report(self, run: StoredRun, scratch: Path | None = None) -> Path:
        """A local path to the run's report with its records beside it: the stored file itself on
        local disk, else a copy in `scratch` (a temporary folder by default)."""
        if self.local:
            return Path(self._key(run.id, REPORT))
        target = Path(scratch or tempfile.mkdtemp(prefix="gameeval-history-")) / run.id
        target.mkdir(parents=True, exist_ok=True)
        for name in run.meta["files"]:
            try:
                (target / name).write_bytes(self.fs.cat_file(self._key(run.id, name)))
            except Exception as e:
                raise GameEvalError(f"{self.where(run.id, name)}: cannot read ({_why(e)})") from None
        return target / REPORT

    def load(self, run: StoredRun, scratch: Path | None = None) -> tuple[dict[str, Any], Path]:
        """The run's report, checked as `--gameeval-baseline` checks a file (shape, every value in its
        range, the records file its seal names), then against what was stored: a file changed after
        the save is refused with one line naming it."""
        from pytest_gameeval.analysis.report.file import read_report

        path = self.local_report(run, scratch)
        local_dir = str(path.parent)
        try:
            report = read_report(path)
            for name, seal in run.meta["files"].items():
                data = (path.parent / name).read_bytes()
                if _sha(data) != (seal or {}).get("sha256"):
                    raise GameEvalError(f"{path.parent / name}: changed after the run was saved (sha256 "
                                        f"{_sha(data)[:12]}, saved as {str((seal or {}).get('sha256'))[:12]}); "
                                        "a stored run is never edited: save a new run instead")
            _same_facts(run, report, self.where(run.id, META))
        except OSError as e:
            raise GameEvalError(f"{self.where(run.id)}: cannot read ({e.strerror or e})") from None
        except GameEvalError as e:
            if self.local:
                raise
            raise GameEvalError(str(e).replace(local_dir, self.where(run.id))) from None
        return report, path


def _same_facts(run: StoredRun, report: dict[str, Any], where: Any) -> None:
    """meta.json is how runs are picked; the report (sealed by its digest) is what is compared: the
    facts a choice rests on must agree, so an edited meta.json cannot pick a run it should not."""
    from pytest_gameeval.analysis.history.meta import meta_of

    truth, meta = meta_of(report), run.meta
    checks = {"model": (truth["models"] or {}).get("evaluated") == (meta.get("models") or {}).get("evaluated"),
              "games": sorted(truth["games"]) == sorted(meta["games"]),
              # failed or not is what a choice rests on (`latest` passes over a failed run); a run saved
              # as "pass" before "not applied" was told apart (a gate that judged no game) still reads
              "gate": ((truth["gate"] or {}).get("verdict") == "fail") == ((meta.get("gate") or {}).get("verdict")
                                                                          == "fail")}
    for name, game in truth["games"].items():
        stored = meta["games"].get(name) or {}
        for key in ("version", "dataset", "options", "structured"):
            checks[f"games.{name}.{key}"] = game.get(key) == stored.get(key)
    wrong = [k for k, ok in checks.items() if not ok]
    if wrong:
        raise GameEvalError(f"{where}: does not match the run's report ({', '.join(wrong)}): edited after the save; "
                            "a stored run is never edited")
