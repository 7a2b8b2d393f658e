"""docs/audit.md's worked examples and figures, recomputed from the code: they cannot drift."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from service.adapters import chain_scan
from service.adapters.records import StoredRecord
from service.api.schemas.audit import ChainVerifyQuerySchema, ExportQuerySchema
from service.domain.audit import GENESIS_HASH, canonical, chain_hash
from service.domain.signing import Keyring, SigningKey, b64, head_message, kid_of, receipt_message, unb64
from service.services.audit import chains as audit
from service.services.audit import receipts

DOC = (Path(__file__).resolve().parents[2] / "docs" / "audit.md").read_text()
RFC8032_SECRET = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
CLIENT = "cl_01JDQ8V6R3X5M2N7P9K4T1W0YZ"
RECORD_1 = {"created_at": "2026-11-29T10:00:00.000Z", "kind": "round", "round": "rnd_x", "sequence": 1}
RECORD_2 = {"created_at": "2026-11-29T10:05:00.000Z", "kind": "void", "round": "rnd_x", "sequence": 2}


def _ring() -> Keyring:
    public = Ed25519PrivateKey.from_private_bytes(RFC8032_SECRET).public_key().public_bytes(
        Encoding.Raw, PublicFormat.Raw
    )
    return Keyring([SigningKey(kid_of(public), public, "2026-11-29T09:00:00.000Z", None, RFC8032_SECRET)])


def _quoted(name: str) -> str:
    found = re.search(rf'"{name}": "([^"]+)"', DOC)
    assert found, name
    return found.group(1)


def test_the_hash_example_is_the_chains_own_arithmetic():
    body = canonical(RECORD_1)
    assert body.decode() in DOC and f"canonical bytes ({len(body)} bytes)" in DOC
    assert f"The {64 + len(body)} hashed bytes" in DOC
    first = chain_hash(GENESIS_HASH, body)
    assert first == hashlib.sha256(b"0" * 64 + body).hexdigest()
    assert f"# {first}  -" in DOC
    second = chain_hash(first, canonical(RECORD_2))
    assert canonical(RECORD_2).decode() in DOC and f"`{second}`" in DOC


def test_the_receipt_example_verifies_and_is_what_the_key_signs():
    ring = _ring()
    key = ring.keys[0]
    assert _quoted("kid") == key.kid and _quoted("public_key") == b64(key.public)
    first = chain_hash(GENESIS_HASH, canonical(RECORD_1))
    message = receipt_message(CLIENT, 1, first)
    assert f"the {len(message)} signed bytes" in DOC
    _, signature = ring.sign(message)
    assert f'"signature": "{b64(signature)}"' in DOC
    assert ring.verify(key.kid, message, unb64(b64(signature)))


def test_the_signed_head_example_verifies():
    ring = _ring()
    second = chain_hash(chain_hash(GENESIS_HASH, canonical(RECORD_1)), canonical(RECORD_2))
    message = head_message(CLIENT, 2, second, "2026-11-29T10:06:00.000Z")
    _, signature = ring.sign(message)
    assert f'"signature": "{b64(signature)}"' in DOC and f'"hash": "{second}"' in DOC


def test_the_export_line_example_is_what_the_export_writes():
    ring = _ring()
    body = canonical(RECORD_1)
    first = chain_hash(GENESIS_HASH, body)
    kid, signature = ring.sign(receipt_message(CLIENT, 1, first))
    line = receipts.export_line(CLIENT, StoredRecord(1, "round", "rnd_x", GENESIS_HASH, first, body, kid, signature))
    assert line.decode().rstrip("\n") in DOC.splitlines()


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("**10,000 by default**, read in\n  statements of 5,000", (audit.DEFAULT_LIMIT, chain_scan.SCAN_STATEMENT)),
        ("`limit` records, 1 to 100,000", audit.MAX_LIMIT),
        ("1 to **50,000**, **10,000 by default**", (receipts.EXPORT_MAX_LIMIT, receipts.EXPORT_DEFAULT_LIMIT)),
        ("1,000 records at a time", receipts.EXPORT_PAGE),
        ("and at most **256 MiB**", receipts.EXPORT_MAX_BYTES // 2**20),
    ],
)
def test_the_documented_limits_are_the_codes(text, value):
    assert text in DOC
    numbers = tuple(int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\d", text))
    assert numbers == (value if isinstance(value, tuple) else (value,))


def test_the_schemas_limits_agree_with_the_services():
    verify = ChainVerifyQuerySchema().fields["limit"]
    export = ExportQuerySchema().fields["limit"]
    assert (verify.load_default, verify.validate.max) == (audit.DEFAULT_LIMIT, audit.MAX_LIMIT)
    assert (export.load_default, export.validate.max) == (receipts.EXPORT_DEFAULT_LIMIT, receipts.EXPORT_MAX_LIMIT)


def test_the_verifiers_caps_in_docs_audit_and_docs_limits_are_the_codes():
    from service.domain.export_check import MAX_DOCUMENT, MAX_LINE
    from service.strictjson import MAX_DEPTH

    limits = (Path(__file__).resolve().parents[2] / "docs" / "limits.md").read_text()
    assert MAX_LINE == MAX_DOCUMENT == 1_048_576 and MAX_DEPTH == 32
    assert "| an export line | **1,048,576 bytes** (1 MiB), its newline included;" in limits
    assert "| `--public-keys`, `--head` documents | **1,048,576 bytes** each; strict JSON nested at most 32 deep" in limits
    assert "a line longer than **1,048,576 bytes** (1 MiB, its newline included)" in DOC
    assert "document over **1,048,576 bytes**, not strict JSON (duplicate\n  keys, NaN, nesting deeper than 32)" in DOC
