"""Every error the codec raises on purpose can stand as a ``--lines`` output line: ``CodecError.to_json``; an
operating-system error reads as Unix tools say it."""

from __future__ import annotations

import pytest

from codec.errors import CodecError, DecodeError, EncodeError, InputError


@pytest.mark.parametrize("error", [InputError("scenario x.json: not JSON"), CodecError("plain")])
def test_an_error_without_a_place_has_its_type_and_message(error):
    # (InputError had no to_json: the CLI's line of an InputError would have been an AttributeError)
    assert error.to_json() == {"type": type(error).__name__, "message": str(error), "offset": None, "path": ""}


def test_the_decode_and_encode_errors_keep_their_place():
    assert DecodeError("bad", message="M", version=1, offset=7, path="a.b").to_json()["offset"] == 7
    assert EncodeError("bad", message="M", version=1, path="a.b").to_json()["path"] == "a.b"


def test_an_os_error_names_its_path_first_as_unix_tools_do(tmp_path):
    """``PATH: reason`` from the errors open() raises, not Python's ``[Errno N] reason: 'PATH'``; the command
    line's error line for a folder given where a file goes says it in those words."""
    from codec.errors import os_error_text

    with pytest.raises(OSError) as missing:
        open(tmp_path / "absent")
    assert os_error_text(missing.value) == f"{tmp_path / 'absent'}: No such file or directory"
    with pytest.raises(OSError) as folder:
        open(tmp_path)
    assert os_error_text(folder.value) == f"{tmp_path} is a directory (no files in it): give one of its files"
    for name in ("b.pcap", "a.pcap", "c.log", "d.txt"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "sub").mkdir()  # (a folder in it is no file)
    assert os_error_text(folder.value) == (
        f"{tmp_path} is a directory (4 files in it: a.pcap, b.pcap, c.log, ...): give one of its files"
    )
    assert os_error_text(OSError("no path here")) == "no path here"


def test_the_command_line_says_a_folder_is_a_folder(tmp_path, capsys):
    """Issue #46: ``capture .`` said ``[Errno 21] Is a directory: '.'``; each command that reads one file says
    the folder is one, with what is in it, in one line, exit status 1."""
    from codec.cli import main

    (tmp_path / "x.pcap").write_bytes(b"")
    assert main(["capture", str(tmp_path)]) == 1
    assert capsys.readouterr().err == (
        f"error: {tmp_path} is a directory (1 file in it: x.pcap): capture reads one file (- for stdin); "
        "name one of its files\n"
    )
    for argv in (["simulate", str(tmp_path)], ["decode", "--kind", "auto", f"@{tmp_path}"], ["assign", str(tmp_path)]):
        assert main(argv) == 1, argv
        got = capsys.readouterr()
        assert f"{tmp_path} is a directory (1 file in it: x.pcap): give one of its files" in got.err + got.out, argv
        assert "Errno" not in got.err + got.out


@pytest.mark.parametrize(
    "text, said",
    [
        # 11 digits: every one is hex, the last byte has one digit (Python's own message calls position 11
        # a non-hexadecimal number)
        ("000e0003000", "input: input is not hex: an odd number of hex digits (11; a byte is two)"),
        ("00 0e zz", "input: input is not hex: 'z' at digit 5 (whitespace and a leading 0x not counted)"),
    ],
)
def test_the_command_line_says_what_is_wrong_with_hex(text, said, capsys):
    from codec.cli import main

    assert main(["decode", "--kind", "auto", text]) == 1
    assert capsys.readouterr().err == f"error: {said}\n"
