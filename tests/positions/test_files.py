"""Reading and writing files (issue 13): regular files only, a size cap, atomic writes that keep modes."""

from __future__ import annotations

import json
import os
import stat

import pytest

from positions import MalformedFileError
from positions.files import MAX_FILE_BYTES, FileWriteError, read_text_file, write_atomically
from positions.validation import MAX_DEPTH, parse_json


@pytest.fixture
def umask_022():  # type: ignore[no-untyped-def]
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_a_file_over_the_size_cap_is_refused_before_it_is_read(tmp_path) -> None:
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(MalformedFileError, match=f"larger than the {MAX_FILE_BYTES}-byte limit"):
        read_text_file(str(big))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifos_devices_and_folders_are_refused_without_opening_them(tmp_path) -> None:
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)  # opening it for reading would wait for a writer for ever
    with pytest.raises(MalformedFileError, match="fifo: is a FIFO, expected a regular file"):
        read_text_file(fifo)
    with pytest.raises(MalformedFileError, match="is a character device, expected a regular file"):
        read_text_file("/dev/zero")
    with pytest.raises(MalformedFileError, match="is a folder"):
        read_text_file(str(tmp_path))


def test_json_nested_deeper_than_the_limit_is_one_error() -> None:
    parse_json("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    for text in ("[" * 3000 + "]" * 3000, '{"a":' * 200_000 + "1" + "}" * 200_000):
        with pytest.raises(MalformedFileError, match=f"f.json: \\$: lists and objects nested more than "
                                                     f"{MAX_DEPTH} deep"):
            parse_json(text, "f.json")
    assert parse_json('["[[[[", "\\"]]"]') == ["[[[[", '"]]']  # brackets in strings do not count


def test_a_repeated_key_is_refused_with_its_path() -> None:
    text = json.dumps({"players": [{}, {"bag": {}}]}).replace('"bag": {}', '"bag": {"sign": 1, "sign": 2}')
    with pytest.raises(MalformedFileError) as caught:
        parse_json(text, "f.json")
    assert str(caught.value) == ("f.json: players[1].bag.sign: the key is given twice, expected each "
                                 "key of an object once")


def test_a_write_replaces_a_regular_file_atomically_keeping_its_mode(tmp_path, umask_022) -> None:
    new = tmp_path / "new.json"
    write_atomically(str(new), "one\n")
    assert new.read_text() == "one\n" and stat.S_IMODE(new.stat().st_mode) == 0o644  # the umask's
    new.chmod(0o640)
    write_atomically(str(new), b"two\n")
    assert new.read_text() == "two\n" and stat.S_IMODE(new.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["new.json"]  # no temporary left behind


def test_a_write_through_a_symlink_replaces_its_target(tmp_path) -> None:
    target, link = tmp_path / "target.json", tmp_path / "link.json"
    target.write_text("old")
    link.symlink_to(target)
    write_atomically(str(link), "new")
    assert link.is_symlink() and target.read_text() == "new"


@pytest.mark.parametrize("make, fragment", [
    (lambda p: os.mkfifo(p), "a FIFO, expected a regular file"),
    (lambda p: os.symlink("/dev/full", p), "a character device, expected a regular file"),
    (lambda p: os.mkdir(p), "a folder, expected a regular file"),
])
def test_what_is_not_a_regular_file_is_never_replaced(tmp_path, make, fragment: str) -> None:
    path = str(tmp_path / "out")
    make(path)
    before = os.lstat(path)
    with pytest.raises(FileWriteError, match=fragment):
        write_atomically(path, "text")
    assert os.lstat(path).st_mode == before.st_mode and os.lstat(path).st_ino == before.st_ino


def test_a_read_only_file_is_refused_even_for_root(tmp_path) -> None:
    path = tmp_path / "kept.json"
    path.write_text("keep me")
    path.chmod(0o444)
    with pytest.raises(FileWriteError, match="kept.json: the file is read-only; not replacing it"):
        write_atomically(str(path), "text")
    assert path.read_text() == "keep me"


def test_a_document_of_many_unknown_keys_is_worded_up_to_the_cap_and_counted() -> None:
    """A reader's work per document is bounded: the first MAX_KEPT problems in words (with their
    suggestions), the rest counted on one line (issue 24: a 4 MB body of unknown keys)."""
    from positions.errors import RefugeError
    from positions.saved import parse_position
    from positions.validation import MAX_KEPT

    document = {"format": "refuge-position/1", **{f"zz{i}": 0 for i in range(MAX_KEPT + 500)}}
    with pytest.raises(RefugeError) as caught:
        parse_position(document)
    lines = str(caught.value).splitlines()
    assert len(lines) == MAX_KEPT + 1 and lines[-1].endswith("more problems")
    assert caught.value.problem_count >= MAX_KEPT + 500  # type: ignore[attr-defined]


def test_the_folder_writer_syncs_and_never_follows_a_link(tmp_path) -> None:
    from positions.files import write_in_folder

    write_in_folder(str(tmp_path), "a.json", "1", new=True)
    write_in_folder(str(tmp_path), "a.json", "2")
    assert (tmp_path / "a.json").read_text() == "2"
    with pytest.raises(FileWriteError, match="exists already"):
        write_in_folder(str(tmp_path), "a.json", "3", new=True)
    (tmp_path / "target").write_text("keep")
    os.symlink(tmp_path / "target", tmp_path / "b.json")
    with pytest.raises(FileWriteError, match="symbolic link"):
        write_in_folder(str(tmp_path), "b.json", "x")
    assert (tmp_path / "target").read_text() == "keep"
    assert sorted(os.listdir(tmp_path)) == ["a.json", "b.json", "target"]  # no temporary left
