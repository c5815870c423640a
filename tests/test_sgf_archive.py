"""Streaming games out of directories, zip and tar archives, with every skip counted."""

from __future__ import annotations

import hashlib
import io
import itertools
import struct
import tarfile
import zipfile
from pathlib import Path

import pytest

from analysis.sgf.archive import ReadStats, iter_games

DATA = Path(__file__).parent / "data" / "sgf"
REAL_ARCHIVE = Path(__file__).parent.parent.parent / "shared/data/tygem-9d/validation/2011-12.zip"

GOOD = [
    b"(;GM[1]FF[4]SZ[9]KM[7]PB[a];B[ee];W[cc];B[gg])",
    b"(;GM[1]FF[4]SZ[9]KM[7]PB[b];B[cc];W[gg])",
    b"(;GM[1]FF[4]SZ[9]KM[7]PB[c];B[gc];W[cg];B[ee])",
]


def make_zip(path: Path, members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def corrupt_member(path: Path, name: str) -> None:
    """Flip ten bytes of a member's (possibly compressed) data inside the zip file."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(name)
    raw = bytearray(path.read_bytes())
    name_len, extra_len = struct.unpack("<HH", raw[info.header_offset + 26 : info.header_offset + 30])
    start = info.header_offset + 30 + name_len + extra_len
    for i in range(start + 5, start + 15):
        raw[i] ^= 0xFF
    path.write_bytes(bytes(raw))


@pytest.mark.skipif(not REAL_ARCHIVE.exists(), reason=f"real archive not present at {REAL_ARCHIVE}")
def test_first_200_games_of_the_real_archive_stream_and_counts_add_up() -> None:
    stats = ReadStats()
    games = list(itertools.islice(iter_games(REAL_ARCHIVE, stats=stats, validate=True), 200))
    assert len(games) == 200
    assert stats.games_read == 200
    assert stats.games_read + stats.games_skipped == stats.files  # one game per member
    assert sum(stats.reasons.values()) == stats.games_skipped
    assert len(stats.errors) == min(stats.games_skipped, stats.max_errors)
    assert sum(stats.encodings.values()) == stats.games_read
    assert all(g.source.startswith(f"{REAL_ARCHIVE}:") and g.source.endswith(".sgf") for g in games)
    assert len({g.source for g in games}) == 200
    assert all(g.size == 19 and g.main_line_moves() for g in games)


@pytest.mark.parametrize(
    "compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA]
)
def test_corrupted_zip_member_is_skipped_and_counted(tmp_path: Path, compression: int) -> None:
    archive = make_zip(
        tmp_path / "games.zip",
        {"1.sgf": GOOD[0], "2.sgf": GOOD[1][:-1] + b"C[" + b"x" * 100 + b"])", "3.sgf": GOOD[2]},
        compression=compression,
    )
    corrupt_member(archive, "2.sgf")
    stats = ReadStats()
    games = list(iter_games(archive, stats=stats))
    assert [g.source for g in games] == [f"{archive}:1.sgf", f"{archive}:3.sgf"]
    assert (stats.files, stats.games_read, stats.games_skipped) == (3, 2, 1)
    assert stats.reasons == {"corrupt_member": 1}
    assert len(stats.errors) == 1 and "2.sgf" in stats.errors[0]


def test_bad_members_are_skipped_and_counted_by_kind(tmp_path: Path) -> None:
    members = {
        "good1.sgf": GOOD[0],
        "truncated.sgf": (DATA / "truncated.sgf").read_bytes(),
        "image.sgf": (DATA / "not_sgf.png").read_bytes(),
        "offboard.sgf": (DATA / "out_of_range.sgf").read_bytes(),
        "good2.sgf": GOOD[1],
        "readme.txt": b"not a game",
        "sub/": b"",
    }
    archive = make_zip(tmp_path / "mixed.zip", members)
    stats = ReadStats()
    games = list(iter_games(archive, stats=stats))
    assert [g.players[1] for g in games] == ["a", "b"]
    assert stats.games_read == 2 and stats.games_skipped == 3 and stats.files == 5
    assert stats.ignored == 1  # readme.txt
    assert stats.reasons == {"truncated": 1, "not_sgf": 1, "bad_coordinate": 1}
    summary = stats.summary()
    assert "2 games read, 3 skipped" in summary and "truncated 1" in summary
    assert f"{archive}:offboard.sgf, move 3: bad coordinate in B[jj]" in summary


def test_validate_skips_games_with_illegal_moves(tmp_path: Path) -> None:
    archive = make_zip(
        tmp_path / "v.zip", {"ok.sgf": GOOD[0], "illegal.sgf": (DATA / "illegal_occupied.sgf").read_bytes()}
    )
    assert len(list(iter_games(archive))) == 2
    stats = ReadStats()
    games = list(iter_games(archive, stats=stats, validate=True))
    assert len(games) == 1
    assert stats.reasons == {"illegal_move": 1}
    assert "illegal.sgf, move 6:" in stats.errors[0] and "occupied" in stats.errors[0]


def test_collection_member_yields_every_game(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "c.zip", {"all.sgf": (DATA / "collection.sgf").read_bytes()})
    stats = ReadStats()
    games = list(iter_games(archive, stats=stats))
    assert [g.size for g in games] == [9, 13, 19]
    assert games[1].source == f"{archive}:all.sgf#2"
    assert (stats.files, stats.games_read) == (1, 3)


def test_tar_gz_members_are_streamed(tmp_path: Path) -> None:
    path = tmp_path / "games.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name, data in [("a/1.sgf", GOOD[0]), ("a/notes.md", b"# notes"), ("b/2.sgf", GOOD[1])]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    stats = ReadStats()
    games = list(iter_games([path], stats=stats))
    assert [g.source for g in games] == [f"{path}:a/1.sgf", f"{path}:b/2.sgf"]
    assert (stats.files, stats.games_read, stats.ignored) == (2, 2, 1)


def tar_bytes(count: int, compression: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=f"w:{compression}") as archive:
        for i in range(count):
            noise = b"".join(hashlib.sha256(b"%d-%d" % (i, j)).hexdigest().encode() for j in range(30))
            data = GOOD[i % 3][:-1] + b"C[" + noise + b"])"  # hex noise: the archive barely compresses
            info = tarfile.TarInfo(f"{i}.sgf")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.mark.parametrize("keep", [0.3, 0.5, 0.8, 0.95])
def test_truncated_tar_gz_is_counted_not_raised(tmp_path: Path, keep: float) -> None:
    data = tar_bytes(40, "gz")
    path = tmp_path / "cut.tgz"
    path.write_bytes(data[: int(len(data) * keep)])
    stats = ReadStats()
    games = list(iter_games(path, stats=stats))
    assert 0 < len(games) < 40
    assert stats.games_skipped == 1 and stats.reasons == {"corrupt_archive": 1}


def test_tar_cut_exactly_between_members_is_counted_not_silently_short(tmp_path: Path) -> None:
    data = tar_bytes(10, "")
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        fifth = archive.getmembers()[5].offset  # the header of member 5: a clean cut for tarfile
    path = tmp_path / "cut.tar"
    path.write_bytes(data[:fifth])
    stats = ReadStats()
    games = list(iter_games(path, stats=stats))
    assert len(games) == 5
    assert stats.reasons == {"corrupt_archive": 1}
    full = tmp_path / "full.tar"
    full.write_bytes(data)
    stats = ReadStats()
    assert len(list(iter_games(full, stats=stats))) == 10 and stats.games_skipped == 0


def test_directories_archives_and_files_can_be_mixed(tmp_path: Path) -> None:
    root = tmp_path / "games"
    (root / "deep" / "deeper").mkdir(parents=True)
    (root / "one.sgf").write_bytes(GOOD[0])
    (root / "deep" / "deeper" / "two.SGF").write_bytes(GOOD[1])
    (root / "deep" / "notes.txt").write_bytes(b"hello")
    make_zip(root / "deep" / "inner.zip", {"three.sgf": GOOD[2]})
    single = tmp_path / "single.sgf"
    single.write_bytes((DATA / "handicap4.sgf").read_bytes())
    stats = ReadStats()
    games = list(iter_games([root, str(single)], stats=stats))
    # Each directory's own files first (sorted), then its subdirectories (sorted).
    assert [Path(g.source.split(":")[-1]).name for g in games] == [
        "one.sgf",
        "three.sgf",
        "two.SGF",
        "single.sgf",
    ]
    assert games[1].source == f"{root / 'deep' / 'inner.zip'}:three.sgf"
    assert (stats.games_read, stats.games_skipped, stats.ignored) == (4, 0, 1)


def test_unreadable_archive_is_counted(tmp_path: Path) -> None:
    bad = tmp_path / "broken.zip"
    bad.write_bytes(b"PK\x03\x04 this is not really a zip")
    stats = ReadStats()
    assert list(iter_games(bad, stats=stats)) == []
    assert stats.reasons == {"unreadable_file": 1} and stats.games_skipped == 1


def test_too_large_file_is_skipped_and_counted(tmp_path: Path) -> None:
    big = tmp_path / "big.sgf"
    big.write_bytes(GOOD[0][:-1] + b"C[" + b"x" * 5000 + b"])")
    stats = ReadStats()
    assert list(iter_games(big, stats=stats, max_file_bytes=1000)) == []
    assert stats.reasons == {"too_large": 1}


def test_a_file_with_no_end_is_read_no_further_than_the_limit_and_skipped_as_too_large() -> None:
    stats = ReadStats()  # /dev/zero's size reads as 0: only reading finds out
    assert list(iter_games("/dev/zero", stats=stats, max_file_bytes=1000)) == []
    assert stats.reasons == {"too_large": 1} and stats.errors == ["/dev/zero: larger than 1000 bytes"]


def test_missing_path_raises_before_anything_is_read(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="nope"):
        iter_games([DATA / "handicap4.sgf", tmp_path / "nope.zip"])


def test_kept_error_messages_are_capped_but_every_skip_is_counted(tmp_path: Path) -> None:
    archive = make_zip(tmp_path / "bad.zip", {f"{i}.sgf": b"(;SZ[9];B[zz])" for i in range(30)})
    stats = ReadStats(max_errors=5)
    assert list(iter_games(archive, stats=stats)) == []
    assert stats.games_skipped == 30 and stats.reasons == {"bad_coordinate": 30}
    assert len(stats.errors) == 5
