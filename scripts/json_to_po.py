"""Fold the old JSON message catalogs (bot/locales/<lang>.json) into the gettext catalogs (bot/locales/<lang>.po).

Re-runnable on purpose: branches written before the move to gettext still add keys to the JSON files, and a rebase
brings those files back. Run it, check its report, then delete the JSON files:

    .venv/bin/python scripts/json_to_po.py [--base GIT_REF] [--delete]

A key the .po lacks is added as a plain (singular) message. A key the .po already has keeps the .po's text (its
plural forms and "you" variants are edited by hand there) — unless `--base` names the commit the .po was made from
and the JSON changed that key since while the .po did not: then the JSON's new text is taken. A key changed on
both sides is reported and left as in the .po, for a person to merge.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from io import BytesIO
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

LOCALES = Path(__file__).resolve().parent.parent / "bot" / "locales"
LANGUAGES = ("ar", "en")
DOMAIN = "majlis"
HEADER = """\
# Majlis messages. msgid is the key the code passes to bot.i18n.t / tn; msgstr is the text, {placeholders} in
# str.format style. Counted messages carry every plural form of the language (CLDR: Arabic 6, English 2);
# msgctxt "you" holds the wording addressed to the reader (second person), used when the subject is "you".
"""


def load_po(lang: str) -> Catalog:
    path = LOCALES / f"{lang}.po"
    if not path.exists():
        return Catalog(locale=lang, domain=DOMAIN, project="Majlis", version="1", charset="utf-8", fuzzy=False,
                       header_comment=HEADER, copyright_holder="Majlis")
    with path.open("rb") as handle:
        return read_po(handle, locale=lang, domain=DOMAIN)


def save_po(lang: str, catalog: Catalog) -> None:
    buffer = BytesIO()
    write_po(buffer, catalog, width=0, no_location=True, omit_header=False)
    (LOCALES / f"{lang}.po").write_bytes(buffer.getvalue())


def base_json(ref: str, lang: str) -> dict[str, str]:
    shown = subprocess.run(["git", "show", f"{ref}:bot/locales/{lang}.json"], capture_output=True, text=True,
                           cwd=LOCALES.parent.parent)
    return json.loads(shown.stdout) if shown.returncode == 0 else {}


def merge(lang: str, base_ref: str | None) -> tuple[list[str], list[str], list[str]]:
    """Fold <lang>.json into <lang>.po; returns the keys added, taken from the JSON, and in conflict."""
    source = LOCALES / f"{lang}.json"
    if not source.exists():
        return [], [], []
    entries: dict[str, str] = json.loads(source.read_text(encoding="utf-8"))
    base = base_json(base_ref, lang) if base_ref else {}
    catalog = load_po(lang)
    added, taken, conflicts = [], [], []
    for key, text in entries.items():
        message = catalog.get(key)
        if message is None:
            catalog.add(key, text, flags=["python-brace-format"] if "{" in text else [])
            added.append(key)
            continue
        if isinstance(message.string, tuple) or message.string == text or key not in base or base[key] == text:
            continue
        if message.string == base[key]:
            message.string = text
            taken.append(key)
        else:
            conflicts.append(key)
    save_po(lang, catalog)
    return added, taken, conflicts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="git ref of the JSON files the .po files were last made from")
    parser.add_argument("--delete", action="store_true",
                        help="delete the JSON files once folded in (kept while a key is in conflict)")
    args = parser.parse_args()
    clean = True
    for lang in LANGUAGES:
        added, taken, conflicts = merge(lang, args.base)
        print(f"{lang}: {len(added)} added {added}, {len(taken)} updated from JSON {taken}")
        if conflicts:
            clean = False
            print(f"{lang}: changed in both JSON and .po, left as in the .po — merge by hand: {conflicts}")
        if args.delete and not conflicts and (LOCALES / f"{lang}.json").exists():
            (LOCALES / f"{lang}.json").unlink()
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
