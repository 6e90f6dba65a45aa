"""Every error the codec raises on purpose can stand as a ``--lines`` output line: ``CodecError.to_json``."""

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
