"""Stream games out of directories, ``.zip`` and ``.tar.gz`` archives and SGF files.

::

    stats = ReadStats()
    for game in iter_games(["games/", "2010-01.zip"], stats=stats, validate=True):
        ...
    print(stats.summary())

Archives are read one member at a time: nothing is extracted to disk and no
archive is loaded into memory whole.  A bad file or member never stops the
stream: it is skipped and counted in the :class:`ReadStats`, with the reason.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import tarfile
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO

from analysis.sgf.read import GameRecord, SgfError, iter_sgf_games, replay

ZIP_SUFFIXES = (".zip",)
TAR_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tar.xz")
SGF_SUFFIXES = (".sgf",)
DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024

# What reading an archive or one of its members can raise besides SgfError.
_READ_ERRORS = (
    OSError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    tarfile.TarError,
)


@dataclass
class ReadStats:
    """Counts kept by :func:`iter_games`; read them during or after the iteration.

    ``files``: SGF files and archive members opened.  ``games_read``: games
    yielded.  ``games_skipped``: games dropped (or whole files, members or
    archive tails when nothing of them could be read), each counted under a
    kind in ``reasons``: an :class:`SgfError` kind, or ``"corrupt_member"``,
    ``"corrupt_archive"``, ``"unreadable_file"``, ``"too_large"``,
    ``"unexpected_error"``.  ``ignored``: files and members that are not SGF
    (e.g. a README in an archive).  ``encodings``: games per codec they were
    decoded with.  ``errors``: the first ``max_errors`` skip messages.
    """

    files: int = 0
    games_read: int = 0
    games_skipped: int = 0
    ignored: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    encodings: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    max_errors: int = 20

    def record_skip(self, kind: str, message: str) -> None:
        """Count one skipped game under ``kind`` and keep ``message`` if fewer than max_errors are kept."""
        self.games_skipped += 1
        self.reasons[kind] += 1
        if len(self.errors) < self.max_errors:
            self.errors.append(message)

    def summary(self) -> str:
        """Return a few human-readable lines: the counts, the skip reasons and the kept messages."""
        lines = [
            f"{self.games_read} games read, {self.games_skipped} skipped, "
            f"from {self.files} SGF files/members ({self.ignored} non-SGF entries ignored)"
        ]
        if self.reasons:
            lines.append("skipped: " + ", ".join(f"{kind} {n}" for kind, n in self.reasons.most_common()))
        lines.extend(f"  {message}" for message in self.errors)
        return "\n".join(lines)


def _has_suffix(name: str, suffixes: tuple[str, ...]) -> bool:
    """Return True if ``name`` ends with one of ``suffixes`` (any case)."""
    return name.lower().endswith(suffixes)


def _games_of(data: bytes, source: str, stats: ReadStats, validate: bool) -> Iterator[GameRecord]:
    """Yield the good games of one SGF file's bytes, counting every game read or skipped."""
    try:
        items = list(iter_sgf_games(data, source))
    except Exception as e:  # a parser bug on odd input must not end the stream; it is counted
        stats.record_skip("unexpected_error", f"{source}: {type(e).__name__}: {e}")
        return
    for item in items:
        if isinstance(item, SgfError):
            stats.record_skip(item.kind, str(item))
            continue
        if validate:
            try:
                replay(item)
            except SgfError as e:
                stats.record_skip(e.kind, str(e))
                continue
            except Exception as e:  # likewise for the rules engine
                stats.record_skip("unexpected_error", f"{item.source}: {type(e).__name__}: {e}")
                continue
        stats.games_read += 1
        stats.encodings[item.encoding or "text"] += 1
        yield item


def read_limited(path: str, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> bytes | None:
    """Return the bytes of the file at ``path``, or None if it holds more than ``max_bytes``.

    At most ``max_bytes + 1`` bytes are read, so a device or a pipe without end (``/dev/zero``)
    never fills the memory.  Raises OSError if the file cannot be opened or read.
    """
    with open(path, "rb") as f:
        data = f.read(max_bytes + 1)
    return data if len(data) <= max_bytes else None


def _file_games(path: str, stats: ReadStats, validate: bool, max_bytes: int) -> Iterator[GameRecord]:
    """Yield the games of one SGF file on disk."""
    stats.files += 1
    try:
        data = read_limited(path, max_bytes)
    except OSError as e:
        stats.record_skip("unreadable_file", f"{path}: cannot read: {e}")
        return
    if data is None:
        stats.record_skip("too_large", f"{path}: larger than {max_bytes} bytes")
        return
    yield from _games_of(data, path, stats, validate)


def _zip_games(path: str, stats: ReadStats, validate: bool, max_bytes: int) -> Iterator[GameRecord]:
    """Yield the games of every ``*.sgf`` member of a zip archive, one member at a time."""
    try:
        archive = zipfile.ZipFile(path)
    except _READ_ERRORS as e:
        stats.files += 1
        stats.record_skip("unreadable_file", f"{path}: not a readable zip archive: {e}")
        return
    with archive:
        for info in archive.infolist():
            if info.is_dir():
                continue
            if not _has_suffix(info.filename, SGF_SUFFIXES):
                stats.ignored += 1
                continue
            source = f"{path}:{info.filename}"
            stats.files += 1
            if info.file_size > max_bytes:  # zipfile never returns more than file_size bytes
                stats.record_skip("too_large", f"{source}: larger than {max_bytes} bytes")
                continue
            try:
                data = archive.read(info)
            except (*_READ_ERRORS, RuntimeError) as e:  # RuntimeError: encrypted or unsupported method
                stats.record_skip("corrupt_member", f"{source}: cannot read member: {e}")
                continue
            yield from _games_of(data, source, stats, validate)


def _open_decompressed(path: str) -> IO[bytes]:
    """Return ``path`` opened for reading, decompressed by its suffix (gzip, bzip2, xz or none)."""
    lower = path.lower()
    if lower.endswith((".gz", ".tgz")):
        return gzip.open(path, "rb")
    if lower.endswith(".bz2"):
        return bz2.open(path, "rb")
    if lower.endswith(".xz"):
        return lzma.open(path, "rb")
    return open(path, "rb")


def _ended_cleanly(archive: tarfile.TarFile) -> bool:
    """Return True if a finished tar stream stopped at its end-of-archive marker.

    ``tarfile`` also stops, silently, at a missing, short or garbled header; then
    the stream did not just read one zero block, or non-zero data follows it.
    """
    stream = archive.fileobj
    if stream is None or stream.tell() - archive.offset != tarfile.BLOCKSIZE:
        return False
    while chunk := stream.read(tarfile.RECORDSIZE):
        if chunk.strip(b"\0"):
            return False
    return True


def _tar_games(path: str, stats: ReadStats, validate: bool, max_bytes: int) -> Iterator[GameRecord]:
    """Yield the games of every ``*.sgf`` member of a (compressed) tar archive, reading it as a stream.

    A tar stream cannot be resynchronised after corrupt or missing data, so a
    read error ends the archive; it is counted as one skip (``"unreadable_file"``
    if nothing could be read, else ``"corrupt_archive"``).
    """
    members_seen = 0
    try:
        with _open_decompressed(path) as raw, tarfile.open(fileobj=raw, mode="r|") as archive:
            while (member := archive.next()) is not None:
                archive.members.clear()  # a tar stream otherwise keeps every header in memory
                members_seen += 1
                if not member.isfile():
                    continue
                if not _has_suffix(member.name, SGF_SUFFIXES):
                    stats.ignored += 1
                    continue
                source = f"{path}:{member.name}"
                stats.files += 1
                if member.size > max_bytes:
                    stats.record_skip("too_large", f"{source}: larger than {max_bytes} bytes")
                    continue
                stream = archive.extractfile(member)
                data = stream.read() if stream is not None else b""
                yield from _games_of(data, source, stats, validate)
            if not _ended_cleanly(archive):
                raise tarfile.ReadError("no end-of-archive marker: truncated or corrupt")
    except _READ_ERRORS as e:
        if members_seen == 0:
            stats.files += 1
            stats.record_skip("unreadable_file", f"{path}: not a readable tar archive: {e}")
        else:
            stats.record_skip("corrupt_archive", f"{path}: unreadable after {members_seen} members: {e}")


def _walk(directory: str) -> Iterator[str]:
    """Yield the files under ``directory``, recursively, in sorted order."""
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(files):
            yield os.path.join(root, name)


def _path_games(
    path: str, stats: ReadStats, validate: bool, max_bytes: int, in_directory: bool
) -> Iterator[GameRecord]:
    """Yield the games of one file: an archive by its suffix, else SGF (only ``*.sgf`` inside directories)."""
    if _has_suffix(path, ZIP_SUFFIXES):
        yield from _zip_games(path, stats, validate, max_bytes)
    elif _has_suffix(path, TAR_SUFFIXES):
        yield from _tar_games(path, stats, validate, max_bytes)
    elif _has_suffix(path, SGF_SUFFIXES) or not in_directory:
        yield from _file_games(path, stats, validate, max_bytes)
    else:
        stats.ignored += 1


def source_files(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    """Return the files :func:`iter_games` reads for ``paths``, in its order: each path that is a
    file, and under each directory its SGF files and archives.  ``iter_games`` on each of them in
    turn yields what it yields on ``paths``.  Raises FileNotFoundError for a missing path."""
    files = []
    for path in existing_paths(paths):
        if not os.path.isdir(path):
            files.append(path)
            continue
        files += [f for f in _walk(path) if _has_suffix(f, ZIP_SUFFIXES + TAR_SUFFIXES + SGF_SUFFIXES)]
    return files


def _stream(paths: list[str], stats: ReadStats, validate: bool, max_bytes: int) -> Iterator[GameRecord]:
    """Yield the games of every path in order (the generator behind :func:`iter_games`)."""
    for path in paths:
        if os.path.isdir(path):
            for file in _walk(path):
                yield from _path_games(file, stats, validate, max_bytes, in_directory=True)
        else:
            yield from _path_games(path, stats, validate, max_bytes, in_directory=False)


def iter_games(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    stats: ReadStats | None = None,
    validate: bool = False,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> Iterator[GameRecord]:
    """Return an iterator over the games of ``paths``, in order.

    Each path may be a directory (searched recursively, in sorted order, for
    ``*.sgf`` files and ``*.zip``, ``*.tar.gz``, ``*.tgz``, ``*.tar``,
    ``*.tar.bz2``, ``*.tar.xz`` archives), an archive (its ``*.sgf`` members are
    read one at a time), or an SGF file (any name).  A file holding a
    collection yields every game.  Sources are named ``<path>`` or
    ``<archive path>:<member name>``, plus ``#n`` for the games of a collection.

    Bad files, members and games are skipped, never raised: each is counted in
    ``stats`` (pass your own :class:`ReadStats` to read the counts), and so is
    a file or member larger than ``max_file_bytes``.  With ``validate=True``
    every game is replayed with the rules engine and games with an illegal move
    are skipped too (kind ``"illegal_move"``).

    Raises FileNotFoundError at once if a path does not exist.
    """
    names = existing_paths(paths)
    return _stream(names, stats if stats is not None else ReadStats(), validate, max_file_bytes)


def existing_paths(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[str]:
    """Return ``paths`` (one path or many) as a list of names.  Raises FileNotFoundError, naming
    it, for the first that does not exist."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    names = [os.fspath(p) for p in paths]
    for name in names:
        if not os.path.exists(name):
            raise FileNotFoundError(f"no such file or directory: {name!r}")
    return names
