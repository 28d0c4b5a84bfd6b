"""Files in and out: every reader takes regular files up to a size cap, every writer is atomic.

Reading refuses what is not a regular file (a FIFO would block, ``/dev/zero`` never ends) before
opening it for real, and reads at most :data:`MAX_FILE_BYTES`. Writing goes to a temporary file in
the target's folder, flushed to disk (file and folder), then renames it over the target: a reader
never sees half a file. A symlink is followed (its target is replaced), the target keeps its
permissions (a new file gets the umask's), and anything that is not a regular file, or a read-only
one, is refused. :func:`write_in_folder` is the stricter writer of a server: one name directly in one
folder, links never followed.
"""

from __future__ import annotations

import os
import secrets
import stat
import tempfile
import time

from positions.errors import MalformedFileError, RefugeError

MAX_FILE_BYTES = 8 * 1024 * 1024
"""The largest file a reader takes: a saved position is a few kilobytes, a long game record ~40 KB."""
TEMPORARY_PREFIX, TEMPORARY_SUFFIX = ".refuge-", ".tmp"
"""The names of the writers' temporary files (``.refuge-XXXX.tmp``)."""


class FileWriteError(RefugeError, OSError):
    """An output path that cannot be written: not a regular file, read-only, or an OS error."""


def regular_file_problem(path: str) -> str | None:
    """Why `path` cannot be read as a regular file (``None``: it can, or it does not exist)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        return "is a folder, expected a file"
    if not stat.S_ISREG(mode):
        return f"is {_kind(mode)}, expected a regular file"
    return None


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


def read_bytes(path: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them.

    Raises:
        MalformedFileError: missing, unreadable, not a regular file, or larger than `limit`.
    """
    problem = regular_file_problem(path)
    if problem is not None:
        raise MalformedFileError(f"{path}: {problem}")
    try:
        # O_NONBLOCK: should the path have become a FIFO since the check, opening does not wait.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise MalformedFileError(f"{path}: cannot read the file ({error.strerror or error})") from None
    with os.fdopen(descriptor, "rb") as handle:
        try:
            info = os.fstat(descriptor)
            if not stat.S_ISREG(info.st_mode):
                raise MalformedFileError(f"{path}: is {_kind(info.st_mode)}, expected a regular file")
            if info.st_size > limit:
                raise MalformedFileError(f"{path}: {info.st_size} bytes, larger than the "
                                         f"{limit}-byte limit for a Refuge file")
            data = handle.read(limit + 1)
        except OSError as error:
            raise MalformedFileError(f"{path}: cannot read the file ({error.strerror or error})") \
                from None
    if len(data) > limit:
        raise MalformedFileError(f"{path}: larger than the {limit}-byte limit for a Refuge file")
    return data


def read_text_file(path: str, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of the regular file at `path` (at most `limit` bytes).

    Raises:
        MalformedFileError: the file cannot be read, is not a regular file, is too big or not UTF-8.
    """
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise MalformedFileError(f"{path}: not UTF-8 text (byte {error.start})") from None


def writable_target(path: str) -> tuple[str, os.stat_result | None]:
    """The file a write to `path` replaces (symlinks followed) and its current status, if any.

    Raises:
        FileWriteError: the target exists but is not a regular file, or is read-only.
    """
    target = os.path.realpath(path)
    try:
        info: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise FileWriteError(f"{path}: cannot write the file ({error.strerror or error})") from None
    if info is not None:
        if not stat.S_ISREG(info.st_mode):
            raise FileWriteError(f"{path}: {_kind(info.st_mode)}, expected a regular file to "
                                 "write (or a new path)")
        # access() says yes to root for any file; the mode bits still say the owner wants it kept.
        if not os.access(target, os.W_OK) or not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP
                                                                   | stat.S_IWOTH):
            raise FileWriteError(f"{path}: the file is read-only; not replacing it")
    return target, info


def check_writable(path: str) -> None:
    """Fail now, before any work, if a later :func:`write_atomically` to `path` would fail.

    Raises:
        FileWriteError: the target is not a regular file or is read-only, or its folder is
            missing or cannot be written.
    """
    target, _ = writable_target(path)
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise FileWriteError(f"{path}: cannot write the file (no such folder {folder})")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise FileWriteError(f"{path}: cannot write the file (the folder {folder} is not writable)")


def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomically(path: str, content: str | bytes) -> None:
    """Write `content` (text as UTF-8) to `path` so that a reader never sees half a file.

    Raises:
        FileWriteError: not a regular file, read-only, or the folder cannot be written.
    """
    target, info = writable_target(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    folder = os.path.dirname(target)
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=TEMPORARY_PREFIX, suffix=TEMPORARY_SUFFIX)
    except OSError as error:
        raise FileWriteError(f"{path}: cannot write the file ({error.strerror or error})") from None
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
            os.fchmod(out.fileno(), stat.S_IMODE(info.st_mode) if info else _new_file_mode())
            if info is not None and hasattr(os, "fchown"):
                try:
                    os.fchown(out.fileno(), info.st_uid, info.st_gid)
                except OSError:
                    pass  # only root may give a file away; then it stays ours
        os.replace(temporary, target)
        sync_folder(folder)
    except BaseException as error:
        if os.path.exists(temporary):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise FileWriteError(f"{path}: cannot write the file ({error.strerror or error})") \
                from None
        raise



def sync_folder(folder: str) -> None:
    """Flush a folder's entries (a rename into it) to disk, where the system allows it."""
    try:
        descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass  # some file systems cannot sync a folder
    finally:
        os.close(descriptor)


def write_in_folder(folder: str, name: str, content: str | bytes, new: bool = False) -> None:
    """Write `content` atomically to the file `name` directly in `folder`, never through a link.

    Every step is relative to the open folder: the temporary file is created with ``O_EXCL`` and
    ``O_NOFOLLOW``, synced, then renamed over `name` (which replaces a link planted there, never its
    target); with `new`, linked to `name` only if nothing (not even a dangling link) is there yet.
    The folder is synced after.

    Raises:
        FileWriteError: `name` is not a plain file name, is a link, a read-only or special file,
            exists when `new`, or the OS refuses.
    """
    if not name or name in (".", "..") or "/" in name or os.sep in name or "\0" in name:
        raise FileWriteError(f"{name!r}: not a plain file name")
    data = content.encode("utf-8") if isinstance(content, str) else content
    try:
        folder_fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as error:
        raise FileWriteError(f"{folder}: cannot open the folder ({error.strerror or error})") from None
    temporary = f"{TEMPORARY_PREFIX}{secrets.token_hex(8)}{TEMPORARY_SUFFIX}"
    created = False
    try:
        mode = _existing_mode(folder_fd, name, new)
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                         mode, dir_fd=folder_fd)
        created = True
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
            os.fchmod(out.fileno(), mode)
        if new:
            os.link(temporary, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd,
                    follow_symlinks=False)
            os.unlink(temporary, dir_fd=folder_fd)
        else:
            os.replace(temporary, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        created = False
        os.fsync(folder_fd)
    except OSError as error:
        if isinstance(error, FileWriteError):
            raise
        what = "exists already" if isinstance(error, FileExistsError) else \
            f"cannot write the file ({error.strerror or error})"
        raise FileWriteError(f"{name}: {what}") from None
    finally:
        if created:
            try:
                os.unlink(temporary, dir_fd=folder_fd)
            except OSError:
                pass
        os.close(folder_fd)


def _existing_mode(folder_fd: int, name: str, new: bool) -> int:
    """The permissions a write of `name` keeps (a new file: the umask's), after checking what is there."""
    try:
        info = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
    except FileNotFoundError:
        return _new_file_mode()
    if new:
        raise FileWriteError(f"{name}: exists already")
    if stat.S_ISLNK(info.st_mode):
        raise FileWriteError(f"{name}: is a symbolic link; not writing through it")
    if not stat.S_ISREG(info.st_mode):
        raise FileWriteError(f"{name}: {_kind(info.st_mode)}, expected a regular file to write")
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise FileWriteError(f"{name}: the file is read-only; not replacing it")
    return stat.S_IMODE(info.st_mode)


def remove_stray_temporaries(folder: str, older_than: float = 60.0) -> list[str]:
    """Delete the writers' temporary files left in `folder` by a killed process (regular files
    named ``.refuge-*.tmp``, untouched for `older_than` seconds); the names removed."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    now = time.time()
    for entry in entries:
        if not (entry.name.startswith(TEMPORARY_PREFIX) and entry.name.endswith(TEMPORARY_SUFFIX)):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and now - info.st_mtime >= older_than:
                os.unlink(entry.path)
                removed.append(entry.name)
        except OSError:
            pass
    return removed
