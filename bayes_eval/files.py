"""Writing output files safely: whole or not at all, never over an input, errors in one line.

Every file bayes_eval writes (a report page, a PNG, a NetCDF, an exported table) goes through
:func:`write_file`: the content is written to a temporary file in the destination's folder and
moved into place (:func:`os.replace`, atomic on one file system) only when complete, so an
error or an interrupt never leaves a half-written file, and an existing file is replaced only
by a complete one. :func:`check_output` refuses, before any work, a destination that is a
folder, that is one of the inputs, whose folder is missing or read-only, or whose name is
longer than the file system allows. Both raise :class:`OutputError`, a ``ValueError`` whose
message names the option and the path in the user's words.
"""

from __future__ import annotations

import errno
import os
import secrets
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["OutputError", "check_output", "describe_os_error", "same_file", "write_file"]

#: What an OS error means to the user who named the path (others: the OS's own words).
_REASONS: dict[int | None, str] = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EROFS: "the file system is read-only",
    errno.ENAMETOOLONG: "the file name is too long",
}


class OutputError(ValueError):
    """An output file that cannot be written (the message names the option and the path).

    A ``ValueError``, raised by :func:`bayes_eval.files.check_output` and
    :func:`bayes_eval.files.write_file`.

    Examples
    --------
    >>> import tempfile
    >>> from bayes_eval.files import OutputError, check_output
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     try:
    ...         check_output(folder, option="--out")
    ...     except OutputError as exc:
    ...         print(str(exc).replace(folder, "FOLDER"))
    --out 'FOLDER' is a folder; expected a file name.
    >>> issubclass(OutputError, ValueError)
    True
    """


def _shown(path: str | Path, width: int = 80) -> str:
    """``path`` quoted, its middle elided when it is longer than ``width`` characters."""
    text = str(path)
    if len(text) > width:
        text = f"{text[: width // 2]}...{text[-(width // 2 - 3) :]} ({len(text)} characters)"
    return repr(text)


def _label(path: str | Path, option: str | None) -> str:
    return f"{option} {_shown(path)}" if option else _shown(path)


def _reason(exc: OSError) -> str:
    return _REASONS.get(exc.errno, (exc.strerror or type(exc).__name__).lower())


def describe_os_error(exc: OSError) -> str:
    """One line for an OS error: the path and the reason, ending with a period.

    For example ``missing.csv: no such file or directory.`` (the path shortened when long;
    the reason in plain words).

    Parameters
    ----------
    exc : OSError
        The error, with or without a ``filename``.

    Returns
    -------
    str
        The path (when the error names one) and the reason, ending with a period.

    Examples
    --------
    >>> from bayes_eval.files import describe_os_error
    >>> try:
    ...     open("missing.csv")
    ... except OSError as exc:
    ...     print(describe_os_error(exc))
    missing.csv: no such file or directory.
    """
    reason = _reason(exc)
    if exc.filename is None:
        return f"{reason}."
    return f"{_shown(exc.filename)[1:-1]}: {reason}."


def same_file(a: str | Path, b: str | Path) -> bool:
    r"""Whether paths ``a`` and ``b`` name one file.

    Links and ``..`` are resolved; hard links are compared by device and inode when both exist.

    Parameters
    ----------
    a, b : str or Path
        The two paths; either may not exist yet.

    Returns
    -------
    bool
        ``True`` if both name the same file; ``False`` otherwise, or if a path cannot be
        resolved.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.files import same_file
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     a = Path(folder) / "results.csv"
    ...     _ = a.write_text("model,question,trial,score\n")
    ...     print(same_file(a, Path(folder) / ".." / a.parent.name / "results.csv"))
    ...     print(same_file(a, Path(folder) / "other.csv"))
    True
    False
    """
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):  # an unreadable or impossible path names no input
        return False


def _name_max(folder: Path) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):  # pragma: no cover - no pathconf here
        return 255


def _existing_ancestor(p: Path) -> Path:
    """The deepest folder of ``p.absolute()`` that exists (the root at worst)."""
    found = Path(p.absolute().anchor or "/")
    for q in reversed(p.absolute().parents):
        try:
            if not q.is_dir():
                break
        except OSError:
            break
        found = q
    return found


def _new_file(folder: Path, suffix: str) -> Path:
    """A new empty hidden file in ``folder``, created with mode 0o666 less the umask.

    As ``open`` creates files; :func:`tempfile.mkstemp` would make it 0o600.
    """
    for _ in range(100):
        path = folder / f".be-{secrets.token_hex(6)}{suffix}"
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:  # pragma: no cover - 48 random bits collided
            continue
        return path
    raise FileExistsError(f"{folder}: no free temporary name")  # pragma: no cover


def check_output(
    path: str | Path,
    *,
    option: str | None = None,
    inputs: Iterable[str | Path] = (),
    folder: bool = False,
) -> Path:
    """Check, before any work, that ``path`` can be written as an output.

    Refused (:class:`OutputError`, naming ``option`` and the path): an empty name; a file
    name longer than the folder's file system allows; a folder where a file is expected (or
    a file where a folder is, ``folder=True``); a missing or read-only folder; and a path
    that names one of ``inputs`` (the files the command reads), which the output would
    overwrite.

    Parameters
    ----------
    path : str or Path
        The output file (or folder, ``folder=True``; created later with its parents).
    option : str, optional
        The option that named it, e.g. ``"--html"``, for the message.
    inputs : iterable of str or Path
        Paths read by the same command.
    folder : bool
        ``path`` is a folder: it may exist (a folder) or be created under an existing,
        writable ancestor.

    Returns
    -------
    Path
        ``path`` with ``~`` expanded.

    Raises
    ------
    OutputError
        If ``path`` cannot be written as an output, for one of the reasons above.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.files import OutputError, check_output
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     source = Path(folder) / "results.csv"
    ...     print(check_output(Path(folder) / "report.html", option="--html").name)
    ...     try:
    ...         check_output(source, option="--html", inputs=[source])
    ...     except OutputError as exc:
    ...         print("refused:", "is the input file" in str(exc))
    report.html
    refused: True
    """
    text = str(path)
    where = _label(text, option)
    if not text.strip():
        raise OutputError(f"{option or 'the file name'} is empty; expected a file name.")
    if "\0" in text:
        raise OutputError(f"{where} holds a NUL character; expected a file name.")
    p = Path(text).expanduser()
    try:
        limit = _name_max(_existing_ancestor(p))
        for part in p.parts:
            size = len(part.encode("utf-8", "surrogateescape"))
            if size > limit:
                raise OutputError(
                    f"{where}: a name in it is {size} bytes long; the file system allows {limit}."
                )
        if folder:
            absolute = p.absolute()
            existing = next(q for q in (absolute, *absolute.parents) if q.exists())
            if not existing.is_dir():
                raise OutputError(f"{where}: {_shown(existing)} is a file, not a folder.")
            parent = existing
        else:
            if p.is_dir():
                raise OutputError(f"{where} is a folder; expected a file name.")
            parent = p.parent
            if not parent.is_dir():
                raise OutputError(f"{where}: the folder {_shown(parent)} does not exist.")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise OutputError(f"{where}: the folder {_shown(parent)} is not writable.")
    except OSError as exc:
        raise OutputError(f"{where}: {_reason(exc)}.") from None
    if not folder:
        for source in inputs:
            if same_file(p, Path(str(source)).expanduser()):
                raise OutputError(
                    f"{where} is the input file {_shown(source)}; writing it would destroy "
                    "the input. Expected another file name."
                )
    return p


def write_file(
    path: str | Path,
    write: Callable[[Path], object],
    *,
    option: str | None = None,
    keep_suffix: bool = False,
) -> Path:
    r"""Write an output file whole or not at all.

    ``write(tmp)`` writes the content to ``tmp``, a new hidden file in the destination's
    folder whose name ends in ``.part`` (so that no reader globbing the folder for the
    destination's kind takes it for a finished file: writers must be told the format, e.g.
    ``savefig(tmp, format="png")``); it is then moved over ``path`` (:func:`os.replace`). On
    any error, or an interrupt, the temporary file is removed and ``path`` is left as it was.

    Parameters
    ----------
    path : str or Path
        The destination.
    write : callable
        Writes the content to the path it is given.
    option : str, optional
        The option that named ``path``, for the message of an error.
    keep_suffix : bool
        The temporary name ends with the destination's suffixes instead (for a writer that
        reads the format from the name only).

    Returns
    -------
    Path
        The destination written.

    Raises
    ------
    OutputError
        If the file cannot be written (no space, permission, a read-only file system, a name
        too long, a folder in the way), naming ``option`` and ``path``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayes_eval.files import write_file
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     out = write_file(Path(folder) / "table.csv", lambda tmp: tmp.write_text("a,b\n1,2\n"))
    ...     print(out.name, repr(out.read_text()), sorted(p.name for p in Path(folder).iterdir()))
    table.csv 'a,b\n1,2\n' ['table.csv']
    """
    p = Path(path).expanduser()
    where = _label(path, option)
    try:
        if p.is_symlink():
            p = p.resolve()  # replace the file linked to, not the link
        if p.is_dir():
            raise OutputError(f"{where} is a folder; expected a file name.")
        if p.exists() and not p.is_file():  # a device or a pipe (/dev/stdout): written in place
            write(p)
            return p
    except OSError as exc:
        raise OutputError(f"{where}: cannot write it: {_reason(exc)}.") from None
    suffix = "".join(p.suffixes[-2:])[:32] if keep_suffix else ".part"
    tmp: Path | None = None
    try:
        tmp = _new_file(p.parent, suffix)
        write(tmp)
        if p.exists():  # a replaced file keeps its permissions
            os.chmod(tmp, p.stat().st_mode & 0o777)
        os.replace(tmp, p)
        tmp = None
    except OSError as exc:
        raise OutputError(f"{where}: cannot write it: {_reason(exc)}.") from None
    finally:
        if tmp is not None:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:  # pragma: no cover - the folder vanished meanwhile
                pass
    return p
