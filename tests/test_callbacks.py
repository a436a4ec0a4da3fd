"""Button action codes: what every adapter sends and the service reads. A code a button of ours could not have sent
is refused as BadAction (the service answers "bad button" to that user only), never misread as another action."""

from __future__ import annotations

import pytest

from bot import callbacks
from bot.callbacks import MAX_BYTES, Action, BadAction, decode, encode


def test_encode_joins_op_match_and_args_and_decode_reads_them_back():
    assert encode("m", 12, 3, 0, "ab") == "m:12:3:0:ab"
    assert decode("m:12:3:0:ab") == Action("m", 12, ("3", "0", "ab"))
    assert encode("j", 7) == "j:7"
    assert decode("j:7") == Action("j", 7, ())
    assert decode(encode("n", 0, "kenza")) == Action("n", 0, ("kenza",))
    for op in callbacks.OPS:
        assert decode(encode(op, 5, "x")) == Action(op, 5, ("x",))


def test_encode_refuses_unknown_ops_and_codes_over_telegrams_64_bytes():
    with pytest.raises(ValueError, match="unknown op 'd'"):
        encode("d", 1)
    longest = encode("p", 1, "a" * (MAX_BYTES - len("p:1:")))
    assert len(longest.encode()) == MAX_BYTES == 64
    with pytest.raises(ValueError, match="action code too long"):
        encode("p", 1, "a" * (MAX_BYTES - len("p:1:") + 1))
    with pytest.raises(ValueError, match="action code too long"):  # bytes, not characters
        encode("p", 1, "ب" * 31)


def test_decode_refuses_what_no_button_of_ours_sends():
    for forged in (None, "", "m", "d:1", "m:x:1", "m:-1:0", ":1", "M:1", "m: 1", "m:1.5"):
        with pytest.raises(BadAction):
            decode(forged)
    with pytest.raises(BadAction, match="empty or oversized action"):
        decode("j:1:" + "a" * 61)
    assert decode("j:1:" + "a" * 60).args == ("a" * 60,)
    with pytest.raises(BadAction, match="unknown action 'f:3'"):
        decode("f:3")
    assert isinstance(BadAction("x"), ValueError)


def test_numeric_fields_take_up_to_eighteen_ascii_digits():
    """Every id and version of ours fits in 18 digits (a signed 64-bit integer); a longer field, an empty one, or
    digits `int()` would read differently (Arabic-Indic, superscripts) come from a forged code."""
    assert callbacks.number("0") == 0
    assert callbacks.number("9" * 18) == 999_999_999_999_999_999
    for forged in ["", "9" * 19, "١٢", "²", "-1", "+1", " 1", "1.0"]:
        with pytest.raises(BadAction):
            callbacks.number(forged)
