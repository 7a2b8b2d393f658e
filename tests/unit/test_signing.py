"""Receipt signing and key loading: the messages, the keyring's checks on load, which key
signs, and which key remakes a receipt that was lost.

A receipt lost with a killed worker is remade on first read with `Keyring.key_at(the
record's time)`: the key that was active when the record was stored, so the remade bytes are
the ones the service answered (Ed25519 is deterministic). A keyring file or public-key
document whose `kid` is not its public key's, or whose private part belongs to another key,
is refused on load, naming the entry.
"""

from __future__ import annotations

import base64
import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from service.adapters import keyfile
from service.domain.signing import (
    Keyring,
    KeyringError,
    SigningKey,
    b64,
    head_message,
    kid_of,
    new_key,
    receipt_message,
    unb64,
)

# RFC 8032 section 7.1, test 1: the secret key, its public key and its signature of "".
RFC_SECRET = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
RFC_PUBLIC = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
RFC_SIGNATURE = bytes.fromhex(
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
)
H = "ab" * 32


def _at(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 11, 29, hour, minute, tzinfo=UTC)


def _stamp(hour: int, minute: int = 0) -> str:
    return f"2026-11-29T{hour:02d}:{minute:02d}:00.000Z"


def rfc_key(created: str = "2026-11-29T09:00:00.000Z", retired: str | None = None) -> SigningKey:
    return SigningKey(kid_of(RFC_PUBLIC), RFC_PUBLIC, created, retired, RFC_SECRET)


# -- messages and encodings -----------------------------------------------------------------------


def test_messages_are_the_documented_text():
    assert receipt_message("cli_1", 7, H) == f"capsa-audit-v1\ncli_1\n7\n{H}\n".encode()
    assert head_message("cli_1", 0, H, "2026-12-01T10:00:00.000Z") == (
        f"capsa-head-v1\ncli_1\n0\n{H}\n2026-12-01T10:00:00.000Z\n".encode())


@pytest.mark.parametrize(
    ("client_id", "sequence", "hash_"),
    [("", 1, H), ("a\nb", 1, H), ("c", -1, H), ("c", True, H), ("c", 1.0, H), ("c", 1, H.upper()),
     ("c", 1, H[:-1]), ("c", 1, H + "0")],
)
def test_a_message_of_a_bad_place_is_refused(client_id, sequence, hash_):
    with pytest.raises(ValueError):
        receipt_message(client_id, sequence, hash_)
    with pytest.raises(ValueError):
        head_message(client_id, sequence, hash_, "2026-12-01T10:00:00.000Z")


@pytest.mark.parametrize(
    ("client_id", "sequence", "hash_", "message"),
    [("", 1, H, "bad client id ''"), ("a\nb", 1, H, "bad client id 'a\\nb'"), ("c", -1, H, "bad sequence -1"),
     ("c", True, H, "bad sequence True"), ("c", 1, H[:-1], f"bad hash {H[:-1]!r}")],
)
def test_a_bad_place_is_named_in_the_refusal(client_id, sequence, hash_, message):
    # The message says which part of the place is wrong and shows it as it came.
    with pytest.raises(ValueError) as caught:
        receipt_message(client_id, sequence, hash_)
    assert str(caught.value) == message


def test_a_sequence_of_zero_is_a_place():
    assert receipt_message("c", 0, H).endswith(f"\n0\n{H}\n".encode())


def test_base64url_is_unpadded_and_canonical():
    assert b64(b"\xfb\xff") == "-_8"
    assert unb64("-_8") == unb64("-_8=") == b"\xfb\xff"
    assert unb64("") == b""
    for bad in ["-_9", "+/8", "a b", "====", "-_8===", 7]:
        with pytest.raises(ValueError):
            unb64(bad)  # type: ignore[arg-type]


def test_base64url_keeps_a_trailing_letter_and_pads_what_it_reads():
    # "X" is a base64url digit: only "=" is padding, on the way out and on the way in.
    assert b64(b"\x00\x00\x17") == "AAAX"
    assert unb64("AAAX") == b"\x00\x00\x17"
    # Ten digits (seven bytes) need two "=" to decode: the padding is made up to a multiple of 4.
    assert unb64("Y2Fwc2EtNw") == unb64("Y2Fwc2EtNw==") == b"capsa-7"


@pytest.mark.parametrize(
    ("text", "message"),
    [("a b", "not base64url: 'a b'"), ("A", "not base64url: 'A'"), ("AAAAA", "not base64url: 'AAAAA'"),
     ("-_9", "not canonical base64url: '-_9'")],
)
def test_text_that_is_not_base64url_is_named_in_the_refusal(text, message):
    # One base64url digit over a multiple of 4 is no bytes at all; "-_9" has unused bits set.
    with pytest.raises(ValueError) as caught:
        unb64(text)
    assert str(caught.value) == message


def test_a_kid_is_the_first_16_hex_digits_of_sha256_of_the_public_key():
    assert kid_of(RFC_PUBLIC) == hashlib.sha256(RFC_PUBLIC).hexdigest()[:16]
    assert len(kid_of(RFC_PUBLIC)) == 16


def test_rfc_8032_vector_signs_as_published():
    ring = Keyring([rfc_key()])
    kid, signature = ring.sign(b"")
    assert (kid, signature) == (kid_of(RFC_PUBLIC), RFC_SIGNATURE)
    assert rfc_key().sign(b"") == RFC_SIGNATURE
    assert ring.verify(kid, b"", RFC_SIGNATURE)
    assert not ring.verify(kid, b"x", RFC_SIGNATURE)
    assert not ring.verify("0" * 16, b"", RFC_SIGNATURE)


def test_a_key_without_its_private_part_cannot_sign():
    public_only = SigningKey(kid_of(RFC_PUBLIC), RFC_PUBLIC, _stamp(9))
    with pytest.raises(KeyringError, match="no private part"):
        public_only.sign(b"m")
    ring = Keyring([public_only])
    assert ring.active is None
    with pytest.raises(KeyringError, match="^no key to sign with$"):
        ring.sign(b"m")
    with pytest.raises(KeyringError, match=f"^key '{public_only.kid}' cannot sign$"):
        ring.sign(b"m", kid=public_only.kid)
    assert ring.verify(public_only.kid, b"", RFC_SIGNATURE)  # it still checks


# -- which key signs ---------------------------------------------------------------------------


def test_the_active_key_is_the_newest_live_one_with_a_private_part():
    old, new = new_key(_at(9)), new_key(_at(10))
    ring = Keyring([new, old])  # any order in; oldest first kept
    assert ring.keys == (old, new) and len(ring) == 2
    assert ring.active == new
    assert ring.sign(b"m")[0] == new.kid
    assert ring.sign(b"m", kid=old.kid)[0] == old.kid
    retired = Keyring([old, SigningKey(new.kid, new.public, new.created_at, _stamp(11), new.private)])
    assert retired.active == old
    assert ring.get(old.kid) == old and ring.get("f" * 16) is None


def test_rotation_retires_every_live_key_at_the_moment_and_adds_an_active_one():
    first = new_key(_at(9))
    ring, second = Keyring([first]).rotated(_at(10))
    assert ring.active == second and second.created_at == _stamp(10)
    assert ring.get(first.kid).retired_at == _stamp(10)
    ring2, third = ring.rotated(_at(11))
    assert ring2.get(first.kid).retired_at == _stamp(10)  # kept, not moved
    assert ring2.get(second.kid).retired_at == _stamp(11)
    assert ring2.active == third


def test_two_keys_with_one_kid_are_refused():
    key = new_key(_at(9))
    with pytest.raises(KeyringError, match="^two keys share a kid$"):
        Keyring([key, SigningKey(key.kid, key.public, _stamp(10), None, key.private)])


# -- which key remakes a lost receipt -------------------------------------------------------------


def test_a_lost_receipt_is_remade_with_the_key_active_when_its_record_was_stored():
    k9, k10, k11 = new_key(_at(9)), new_key(_at(10)), new_key(_at(11))
    ring = Keyring([k9, k10, k11])
    assert ring.key_at(_stamp(9, 30)) == k9
    assert ring.key_at(_stamp(10)) == k10  # made at that very moment: it signed it
    assert ring.key_at("2026-11-29T09:59:59.999Z") == k9
    assert ring.key_at(_stamp(12)) == k11
    # a record older than every key: the oldest key, as sign_pending gave it
    assert ring.key_at(_stamp(8)) == k9


def test_a_record_whose_key_kept_only_its_public_half_is_signed_by_no_other_key():
    """An operator may keep a retired key public only. Its records' lost receipts cannot be
    remade: the newer key did not sign records of their time, and a verifier refuses a
    receipt it made for them, so none is made (before, the newest key with a private part
    signed them)."""
    k9, k10 = new_key(_at(9)), new_key(_at(10))
    retired = SigningKey(k9.kid, k9.public, k9.created_at, _stamp(10))
    ring = Keyring([retired, k10])
    assert not ring.may_sign(k10.kid, _stamp(9, 30))
    assert ring.key_at(_stamp(9, 30)) is None
    assert ring.key_at(_stamp(8)) is None  # older than every key: the oldest key's, public only
    assert ring.key_at(_stamp(10, 30)) == k10


def test_the_key_that_remakes_a_receipt_is_never_one_without_a_private_part():
    k9, k10 = new_key(_at(9)), new_key(_at(10))
    only_public = SigningKey(k10.kid, k10.public, k10.created_at)
    ring = Keyring([k9, only_public])
    assert ring.key_at(_stamp(10, 30)) == k9
    assert ring.key_at(_stamp(8)) == k9
    assert Keyring([only_public]).key_at(_stamp(10, 30)) is None
    assert Keyring([]).key_at(_stamp(10)) is None
    # A record older than all is the oldest key's: kept public only, no other key makes a
    # receipt for it that a verifier accepts (`may_sign`), so none is made.
    older = Keyring([SigningKey(k9.kid, k9.public, k9.created_at), k10])
    assert older.key_at(_stamp(8)) is None and not older.may_sign(k10.kid, _stamp(8))


def test_a_remade_receipt_is_the_same_bytes_as_the_first():
    k9, k10 = new_key(_at(9)), new_key(_at(10))
    message = receipt_message("cli_1", 3, H)
    first = Keyring([k9]).sign(message)  # answered at 9:30, with k9 the only key
    later = Keyring([k9, k10])  # k10 made at 10:00; the receipt of 9:30 was lost
    key = later.key_at(_stamp(9, 30))
    assert key is not None and later.sign(message, key.kid) == first


# -- loading a keyring ------------------------------------------------------------------------


def _entry(key: SigningKey, **changes: object) -> dict[str, object]:
    entry: dict[str, object] = {**key.public_json(), "private_key": b64(key.private or b"")}
    entry.update(changes)
    return {k: v for k, v in entry.items() if v is not _DROP}


_DROP = object()


def test_a_keyring_survives_its_file_document():
    k9, k10 = new_key(_at(9)), new_key(_at(10))
    ring = Keyring([k9, k10])
    doc = ring.private_json()
    assert doc["format"] == "capsa-keyring-v1"
    again = Keyring.from_json(json.loads(json.dumps(doc)))
    assert again.keys == ring.keys
    public = Keyring.from_json(ring.public_json(), public_only=True)
    assert [k.private for k in public.keys] == [None, None]
    assert [k.public for k in public.keys] == [k9.public, k10.public]
    # public_only drops a private part the document carries
    assert [k.private for k in Keyring.from_json(doc, public_only=True).keys] == [None, None]


def test_the_public_document_carries_no_private_part():
    key = rfc_key()
    assert Keyring([key]).public_json() == {"keys": [{
        "kid": kid_of(RFC_PUBLIC), "algorithm": "Ed25519", "public_key": b64(RFC_PUBLIC),
        "created_at": "2026-11-29T09:00:00.000Z", "retired_at": None}]}


OTHER = new_key(_at(12))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"kid": OTHER.kid}, "is not the public key's"),
        ({"kid": kid_of(RFC_PUBLIC).upper()}, "is not the public key's"),
        ({"kid": kid_of(RFC_PUBLIC)[:15]}, "is not the public key's"),
        ({"kid": kid_of(RFC_PUBLIC) + "0"}, "is not the public key's"),
        ({"kid": hashlib.sha256(RFC_PUBLIC).hexdigest()}, "is not the public key's"),
        ({"kid": 7}, "is not the public key's"),
        ({"kid": _DROP}, 'no "kid"'),
        ({"public_key": b64(RFC_PUBLIC[:31])}, "public_key is not 32 bytes"),
        ({"public_key": b64(RFC_PUBLIC + b"\0")}, "public_key is not 32 bytes"),
        ({"public_key": "not base64!"}, "not base64url"),
        ({"private_key": b64(OTHER.private or b"")}, "does not belong to key"),
        ({"private_key": b64(RFC_SECRET[:31])}, "private_key is not 32 bytes"),
        ({"algorithm": "RSA"}, "unsupported algorithm 'RSA'"),
        ({"created_at": 1}, "created_at and retired_at are RFC 3339 strings"),
        ({"retired_at": 1}, "created_at and retired_at are RFC 3339 strings"),
        ({"created_at": _DROP}, 'no "created_at"'),
    ],
)
def test_a_keyring_entry_that_does_not_hold_together_is_refused_naming_it(changes, message):
    good = _entry(OTHER)
    doc = {"keys": [good, _entry(rfc_key(), **changes)]}
    with pytest.raises(KeyringError, match=r"^keys\[1\]: ") as caught:
        Keyring.from_json(doc)
    assert message in str(caught.value)
    if message.endswith(("bytes", "'RSA'", "strings")):  # the whole of what follows the entry
        assert str(caught.value) == f"keys[1]: {message}"


@pytest.mark.parametrize("spoilt", [b64(RFC_SECRET) + "\n", b64(RFC_SECRET).replace("_", "/") + "+", b64(RFC_SECRET)[:-1] + "B"])
def test_a_private_key_that_does_not_decode_is_refused_without_a_character_of_it(spoilt):
    # The message goes to logs (the start's traceback, a HUP's error line): a pasted key
    # with a newline or a base64 "+" must not be written there.
    import traceback

    doc = {"keys": [_entry(rfc_key(), private_key=spoilt)]}
    with pytest.raises(KeyringError) as caught:
        Keyring.from_json(doc)
    assert str(caught.value) == f"keys[0]: private_key is not base64url ({len(spoilt)} characters)"
    printed = "".join(traceback.format_exception(caught.value))  # with every exception it chains
    assert all(spoilt[i : i + 6] not in printed for i in range(len(spoilt) - 5))


def test_a_kid_checked_against_the_public_key_when_only_public_keys_are_read():
    doc = {"keys": [{**rfc_key().public_json(), "kid": OTHER.kid}]}
    with pytest.raises(KeyringError, match=r"keys\[0\]: kid .* is not the public key's"):
        Keyring.from_json(doc, public_only=True)


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([], 'a key document is an object with a "keys" list'),
        ({}, 'a key document is an object with a "keys" list'),
        ({"keys": {}}, 'a key document is an object with a "keys" list'),
        ({"keys": None}, 'a key document is an object with a "keys" list'),
        ("keys", 'a key document is an object with a "keys" list'),
        ({"keys": [1]}, "keys[0]: an entry is an object"),
        ({"keys": [{"kid": "k"}]}, 'keys[0]: no "public_key"'),
    ],
)
def test_a_document_that_is_not_a_keyring_is_refused(doc, message):
    with pytest.raises(KeyringError) as caught:
        Keyring.from_json(doc)
    assert str(caught.value) == message


def test_a_keyring_file_that_is_json_but_no_keyring_is_named(tmp_path):
    """It said what was wrong ("keys[0]: 'public_key'") but not in which file, where one
    that does not read names it: an operator with several keyrings could not tell."""
    from service.adapters import keyfile

    path = tmp_path / "ring.json"
    path.write_text('{"keys": [{"kid": "k"}]}', encoding="utf-8")
    with pytest.raises(KeyringError) as caught:
        keyfile.load(path)
    assert str(caught.value) == f'SIGNING_KEY_FILE {str(path)!r} is not a keyring: keys[0]: no "public_key"'
    with pytest.raises(KeyringError) as caught:
        keyfile.load(path, "--file")
    assert str(caught.value).startswith(f"--file {str(path)!r} is not a keyring: ")


def test_an_absent_algorithm_and_retired_at_are_the_defaults():
    entry = _entry(rfc_key(), algorithm=_DROP, retired_at=_DROP)
    key, = Keyring.from_json({"keys": [entry]}).keys
    assert (key.retired_at, key.private) == (None, RFC_SECRET)


# -- the keyring file ---------------------------------------------------------------------------


def test_the_keyring_file_is_written_only_readable_by_its_owner_and_read_back(tmp_path: Path):
    ring = Keyring([new_key(_at(9))])
    path = tmp_path / "keys" / "ring.json"
    keyfile.save(path, ring)
    assert path.stat().st_mode & 0o777 == 0o600
    assert keyfile.load(path).keys == ring.keys
    assert not path.with_name("ring.json.tmp").exists()
    ring2, _ = ring.rotated(_at(10))
    keyfile.save(path, ring2)  # replaces it
    assert keyfile.load(path).keys == ring2.keys


def test_the_keyring_file_goes_into_missing_folders_and_takes_over_a_crashed_writes_leftover(tmp_path: Path):
    path = tmp_path / "etc" / "capsa" / "ring.json"
    ring = Keyring([new_key(_at(9))])
    keyfile.save(path, ring)  # two folders that do not exist yet
    assert keyfile.load(path).keys == ring.keys
    # A write killed before its rename leaves ring.json.tmp behind: the next write reuses
    # and renames it, so no stale copy of private keys stays beside the file.
    leftover = path.with_name("ring.json.tmp")
    leftover.write_text("half a keyring")
    keyfile.save(path, Keyring([rfc_key()]))
    assert not leftover.exists()
    assert keyfile.load(path).keys == Keyring([rfc_key()]).keys
    # One key field a line, two spaces deep, a newline at the end: the file an operator
    # reads and compares across hosts.
    text = path.read_text(encoding="ascii")
    assert text.startswith('{\n  "') and text.endswith("}\n")


def test_a_crashed_writes_leftover_readable_by_others_does_not_make_the_keyring_so(tmp_path: Path):
    """The leftover `ring.json.tmp` was opened for writing as it was, so its mode (0644, or
    another owner's) became the keyring's: private keys readable by everyone."""
    path = tmp_path / "ring.json"
    leftover = path.with_name("ring.json.tmp")
    leftover.write_text("half a keyring")
    leftover.chmod(0o644)
    keyfile.save(path, Keyring([new_key(_at(9))]))
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_keyring_path_that_is_a_link_is_written_through_to_its_target(tmp_path: Path):
    """Hosts share one keyring through a link: the write replaced the link with a file of
    its own, so the shared target kept the old key while this host signed with the new."""
    shared = tmp_path / "shared" / "ring.json"
    keyfile.save(shared, Keyring([rfc_key()]))
    link = tmp_path / "host" / "ring.json"
    link.parent.mkdir()
    link.symlink_to(shared)
    ring = Keyring([new_key(_at(9))])
    keyfile.save(link, ring)
    assert link.is_symlink() and keyfile.load(shared).keys == ring.keys
    assert shared.stat().st_mode & 0o777 == 0o600


def test_a_missing_or_unreadable_keyring_file_says_what_to_do(tmp_path: Path):
    missing = tmp_path / "none.json"
    with pytest.raises(KeyringError, match="does not exist; create it with `capsa keys create`") as info:
        keyfile.load(missing)
    assert f"SIGNING_KEY_FILE {str(missing)!r} does not exist" in str(info.value)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(KeyringError, match="cannot be read as a keyring") as info:
        keyfile.load(bad)
    assert f"SIGNING_KEY_FILE {str(bad)!r} cannot be read" in str(info.value)
    tampered = tmp_path / "tampered.json"
    doc = Keyring([rfc_key()]).private_json()
    doc["keys"][0]["kid"] = OTHER.kid
    tampered.write_text(json.dumps(doc))
    with pytest.raises(KeyringError, match=r"keys\[0\]: kid"):
        keyfile.load(tampered)


def test_the_keyring_file_comes_from_signing_key_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("SIGNING_KEY_FILE", raising=False)
    assert keyfile.path_from_env() is None and keyfile.load_env() is None
    monkeypatch.setenv("SIGNING_KEY_FILE", "  ")
    assert keyfile.path_from_env() is None
    path = tmp_path / "ring.json"
    keyfile.save(path, Keyring([rfc_key()]))
    monkeypatch.setenv("SIGNING_KEY_FILE", f" {path} ")
    assert keyfile.path_from_env() == path
    ring = keyfile.load_env()
    assert ring is not None and ring.active == rfc_key()


def test_base64_of_the_rfc_key_is_what_the_docs_show():
    assert b64(RFC_PUBLIC) == base64.urlsafe_b64encode(RFC_PUBLIC).decode().rstrip("=")


def test_a_key_signs_from_its_making_until_its_retirement_and_the_grace():
    from datetime import timedelta

    from service.domain.audit import timestamp
    from service.domain.signing import CLOCK_SKEW, ROTATION_GRACE

    t0 = datetime(2026, 12, 1, 10, tzinfo=UTC)
    ring, k1 = Keyring().rotated(t0)
    ring, k2 = ring.rotated(t0 + timedelta(hours=1))
    public = Keyring.from_json(ring.public_json(), public_only=True)

    def may(kid: str, at: datetime) -> bool:
        return public.may_sign(kid, timestamp(at))

    assert may(k1.kid, t0 - timedelta(days=30))  # the oldest key signs what is older than every key
    assert may(k1.kid, t0 + timedelta(minutes=59))
    assert may(k1.kid, t0 + timedelta(hours=1) + ROTATION_GRACE - timedelta(milliseconds=1))  # nodes restarting
    assert not may(k1.kid, t0 + timedelta(hours=1) + ROTATION_GRACE)  # retired: nothing later
    assert may(k2.kid, t0 + timedelta(hours=1) - CLOCK_SKEW)  # a node's clock behind the key's host
    assert not may(k2.kid, t0 + timedelta(hours=1) - CLOCK_SKEW - timedelta(milliseconds=1))
    assert may(k2.kid, t0 + timedelta(days=400))
    assert not public.may_sign("0" * 16, timestamp(t0))  # not a key of the ring
    assert not public.may_sign(k2.kid, "not a time") and not public.may_sign(k2.kid, "2026-12-01T10:00:00")


def test_a_key_dated_at_either_end_of_the_calendar_is_compared_not_overflowed():
    """A keys document is the verifier's input: its dates may be the first or last instant
    a datetime holds, which the margins would carry past (OverflowError, a traceback)."""
    first = rfc_key(created="0001-01-01T00:00:00.000Z")
    second = SigningKey(**{**first.__dict__, "kid": "1" * 16, "created_at": "0001-01-01T00:00:00.000Z",
                           "retired_at": "9999-12-31T23:59:59.999Z"})
    ring = Keyring([first, second])
    assert ring.may_sign(second.kid, "2026-12-01T10:00:00.000Z")  # made long before, retired long after
    # A record dated where no margin fits (no service writes one) is signed by no key.
    assert not ring.may_sign(second.kid, "0001-01-01T00:00:00.000Z")
    assert not ring.may_sign(second.kid, "9999-12-31T23:59:59.999Z")
    late = SigningKey(**{**first.__dict__, "kid": "2" * 16, "created_at": "9999-12-31T23:59:59.999Z"})
    assert not Keyring([first, late]).may_sign(late.kid, "2026-12-01T10:00:00.000Z")  # not made yet
    assert not Keyring([first, late]).may_sign(late.kid, "0001-01-01T00:00:00.000Z")
