"""E-mail parts with unknown charsets fall back like other text (issue 21, item 8).

Before, `get_content()` raised LookupError for a charset Python does not know and the whole
message was refused as unreadable; now the part is decoded as UTF-8 (each undecodable byte U+FFFD,
like any other text) and the document's meta says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from semantic_rdf.pipeline.sources import ingest_bytes
from semantic_rdf.pipeline.parse import parse

ROOT = Path(__file__).resolve().parents[1]


def _mail(body_headers: bytes, body: bytes, *, multipart: bool = False) -> bytes:
    head = b"From: Ada <ada@example.org>\r\nTo: bob@example.org\r\nSubject: Notes\r\nMIME-Version: 1.0\r\n"
    if not multipart:
        return head + body_headers + b"\r\n" + body
    return (
        head + b"Content-Type: multipart/alternative; boundary=XX\r\n\r\n"
        b"--XX\r\n" + body_headers + b"\r\n" + body + b"\r\n"
        b"--XX\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>The HTML part.</p>\r\n--XX--\r\n"
    )


def _doc(data: bytes):
    return parse(ingest_bytes(data, "m.eml")[0])


def test_unknown_charset_in_a_multipart_body_falls_back_with_a_note():
    d = _doc(_mail(b"Content-Type: text/plain; charset=x-no-such-charset\r\n", b"Ada Lovelace was born in London.", multipart=True))
    assert d.text == "Notes\n\nAda Lovelace was born in London."
    assert d.meta["from"] == "Ada <ada@example.org>"
    assert d.meta["notes"] == ("text/plain part: unknown charset 'x-no-such-charset', decoded as UTF-8",)


def test_undecodable_bytes_are_replaced_and_counted():
    d = _doc(
        _mail(b"Content-Type: text/plain; charset=klingon-8\r\nContent-Transfer-Encoding: 8bit\r\n", b"Caf\xe9 au lait in Z\xfcrich, na\xc3\xafve.")
    )
    assert d.text == "Notes\n\nCaf\ufffd au lait in Z\ufffdrich, na\u00efve."
    assert d.meta["notes"] == ("text/plain part: unknown charset 'klingon-8', decoded as UTF-8 (2 undecodable bytes replaced)",)


def test_unknown_charset_in_an_html_only_message_is_made_plain():
    d = _doc(
        _mail(
            b"Content-Type: text/html; charset=x-unknown\r\nContent-Transfer-Encoding: base64\r\n",
            b"PHA+QWRhIExvdmVsYWNlIHdhcyBib3JuIGluIExvbmRvbi48L3A+\r\n",
        )
    )
    assert d.text == "Notes\n\nAda Lovelace was born in London."
    assert "text/html part: unknown charset 'x-unknown'" in d.meta["notes"][0]


def test_known_charsets_decode_as_before_without_a_note():
    d = _doc(_mail(b"Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: 8bit\r\n", b"Caf\xe9 in Z\xfcrich."))
    assert d.text == "Notes\n\nCaf\u00e9 in Z\u00fcrich."
    assert "notes" not in d.meta


def test_cli_ingests_the_message_and_reports_the_note(tmp_path):
    (tmp_path / "m.eml").write_bytes(_mail(b"Content-Type: text/plain; charset=x-bogus\r\n", b"Ada Lovelace was born in London.", multipart=True))
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-m", "semantic_rdf", "--store", str(tmp_path / "s"), "--json", "ingest", "m.eml"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["documents"] == 1 and not out["failed"]
    assert out["notes"] == [{"ref": "m.eml", "note": "text/plain part: unknown charset 'x-bogus', decoded as UTF-8"}]
