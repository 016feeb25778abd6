"""Passages: the people's own words from the episode files, indexed for BM25 search.

A passage is one message of an episode, or a part of a long one (split at sentence ends, so
a pasted log does not drown every other passage). The index lives beside the fact index under
`.mdmem/` and, like it, is derived: delete it and the next read rebuilds it from `episodes/`.
An ingest indexes the files it wrote (`update`), so that no read pays for what it wrote.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mdmem.boundary import OutsideVault, listdir
from mdmem.errors import FactFileError
from mdmem.files import read_text
from mdmem.lang.tokens import fold, tokens
from mdmem.lazy_regex import lazy
from mdmem.model.episode import Said, parse
from mdmem.store.cachedb import open_db
from mdmem.store.vault import PASSAGES_FILE

SCHEMA = 4  # bump when the tokenizer, the splitting or the tables change: rebuilt on open
MAX_CHARS = 600  # a message longer than this is split into passages of about this size
# What of one episode file is searchable: a pasted 10 MB log stays in the file, word for word,
# but indexing all of it would take the first `ask` after it a minute (RELIABILITY.md).
MAX_INDEXED = 1_000_000
# Chat answers a question in the next message: a passage is also found by the words of the
# message just before it (what it answers) and, less, the one after it (what it was asked
# back). Chosen on the LoCoMo dev conversations (one weight of 0.3 for both lifted
# evidence-in-top-3 from 0.56 to 0.666; 0.5 before and 0.2 after to 0.674); the other
# conversations were never run.
BEFORE_WEIGHT = 0.5
AFTER_WEIGHT = 0.2
SPEAKER_BOOST = 2.0  # a passage by the person a question names ranks this much higher
# So does, less, a question someone else asked them: their reply is quoted with it (said.py),
# and it often holds the words the reply answers with 'They were thrilled.' (LoCoMo dev
# conversations: 1.3, 1.5, 1.7 tried; 1.5 best.)
ASKED_BOOST = 1.5
DATE_BOOST = 2.0  # so does one said in the period a question names ('in May 2022')
COMMON_AFTER = 2000  # passages; in a smaller index every word of a question is searched
_SENTENCE_END = lazy(r"(?<=[.!?。！？])\s+|\n\s*\n")

# FTS5's Porter stemmer over the tokens of `lang.tokens` (already stripped of plural, -ing, -ed):
# it also joins derived forms, realize / realization, which those leave apart. A question's
# words go through it too: MATCH stems each phrase with the table's tokenizer.
TOKENIZE = "porter unicode61 remove_diacritics 0"
_DDL = f"""
CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, sig TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rows(
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, anchor TEXT NOT NULL, date TEXT NOT NULL,
    time TEXT, speaker TEXT NOT NULL, text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS rows_path ON rows(path);
CREATE INDEX IF NOT EXISTS rows_speaker ON rows(speaker);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(body, before, after, tokenize="{TOKENIZE}");
CREATE VIRTUAL TABLE IF NOT EXISTS vocab USING fts5vocab(fts, 'row');
"""
# A scratch table that tokenizes like `fts` and tells each word's indexed form.
_STEMS_DDL = f"""
CREATE VIRTUAL TABLE scratch USING fts5(word, tokenize="{TOKENIZE}");
CREATE VIRTUAL TABLE held USING fts5vocab(scratch, 'instance');
"""


@dataclass(frozen=True)
class Passage:
    """Words a person said, where and when."""

    episode: str  # vault-relative path of the episode file
    anchor: str  # the message's block id, 'm3'
    date: str  # the session's date
    time: str | None
    speaker: str
    text: str
    score: float = 0.0  # higher is better
    reply: bool = False  # quoted because it answers the question passage before it

    @property
    def link(self) -> str:
        """The Obsidian link to the message: '[[episodes/2023/2023-05-08-chat#^m3]]'."""
        return f"[[{self.episode.removesuffix('.md')}#^{self.anchor}]]"

    def to_json(self) -> dict[str, Any]:
        return {"episode": self.episode, "anchor": self.anchor, "date": self.date,
                "time": self.time, "speaker": self.speaker, "text": self.text,
                "score": round(self.score, 3), "reply": self.reply}  # fmt: skip

    @property
    def asks(self) -> bool:
        """Whether the passage ends with a question, whose answer is the next message."""
        return self.text.rstrip().endswith(("?", "？"))


def split_passages(text: str, limit: int = MAX_CHARS) -> list[str]:
    """A message as passages of at most about `limit` characters, cut at sentence ends
    where there are any and hard-cut where there are none (a 1 MB line of log)."""
    if len(text) <= limit:
        return [text]
    out: list[str] = []
    current = ""
    for piece in _SENTENCE_END().split(text):
        if len(piece) > limit:  # hard cuts, by index: not a copy of the rest per cut
            if current:
                out.append(current)
                current = ""
            cuts = (len(piece) - 1) // limit
            out += [piece[i * limit : (i + 1) * limit] for i in range(cuts)]
            piece = piece[cuts * limit :]
        if current and len(current) + 1 + len(piece) > limit:
            out.append(current)
            current = ""
        current = f"{current} {piece}" if current else piece
    if current:
        out.append(current)
    return [p for p in (p.strip() for p in out) if p]


def _sig(st: os.stat_result) -> str:
    return f"{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_size}:{st.st_ino}"


def _episode_files(root: Path) -> Iterator[tuple[str, os.stat_result]]:
    """Every episode file, listed through the vault's boundary (a folder linked out is refused)."""
    base = root / "episodes"
    for year in listdir(base):
        if year.startswith("."):
            continue
        for name in listdir(base / year):
            if name.endswith(".md") and not name.startswith("."):
                with contextlib.suppress(FileNotFoundError):
                    yield f"episodes/{year}/{name}", os.stat(base / year / name)


def _parts(messages: list[Said]) -> list[tuple[Said, str, str]]:
    """(message, passage, its tokens) of the messages, up to MAX_INDEXED characters in all."""
    out: list[tuple[Said, str, str]] = []
    size = 0
    for said in messages:
        for part in split_passages(said.text):
            if size >= MAX_INDEXED:
                return out
            size += len(part)
            out.append((said, part, " ".join(tokens(part))))
    return out


class PassageIndex:
    """The passage index of one vault: `refresh()`, then `search()`."""

    def __init__(self, root: Path, meta: Path) -> None:
        self.root = root
        self.db = open_db(meta / PASSAGES_FILE)  # inside the vault, never through a link
        # Forgotten words must not linger in freed pages of the file.
        self.db.execute("PRAGMA secure_delete = ON")
        self.db.executescript("CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT NOT NULL);")
        row = self.db.execute("SELECT v FROM meta WHERE k='schema'").fetchone()
        if row is None or row[0] != str(SCHEMA):
            # Another layout's tables go whole: their columns may differ from this one's.
            self.db.executescript(
                "DROP TABLE IF EXISTS vocab; DROP TABLE IF EXISTS fts; DROP TABLE IF EXISTS rows;"
                " DROP TABLE IF EXISTS files;"
            )
            self.db.executescript(_DDL)
            self.db.execute("INSERT OR REPLACE INTO meta VALUES('schema', ?)", (str(SCHEMA),))
            self.db.commit()
        else:
            self.db.executescript(_DDL)
        self.problems: list[FactFileError] = []
        self.reread: list[str] = []  # the episode files the last refresh read again or dropped
        self._speakers: list[str] | None = None
        self._stemmer: sqlite3.Connection | None = None

    def close(self) -> None:
        self.db.close()
        if self._stemmer is not None:
            self._stemmer.close()

    def refresh(self) -> int:
        """Re-read the episode files that changed since the last refresh; how many did."""
        known = dict(self.db.execute("SELECT path, sig FROM files"))
        listed = list(_episode_files(self.root))
        seen = {rel for rel, _ in listed}
        return self._reindex(listed, known, sorted(set(known) - seen))

    def update(self, rels: Iterable[str]) -> int:
        """`refresh` of just these episode files (those an ingest wrote): the next read finds
        them indexed and reads none of them again; any other change waits for `refresh`."""
        listed, known = [], {}
        for rel in sorted(set(rels)):
            with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                listed.append((rel, os.stat(self.root / rel)))
            for (sig,) in self.db.execute("SELECT sig FROM files WHERE path=?", (rel,)):
                known[rel] = sig
        return self._reindex(listed, known, [])

    def _reindex(self, listed: list[tuple[str, os.stat_result]], known: dict[str, str], gone: list[str]) -> int:  # fmt: skip
        """Index the listed files whose signature is not the known one, drop the gone ones."""
        changed = 0
        vanished = False  # words gone from a file: their index entries must go too
        self.problems, self.reread = [], []
        for rel, st in listed:
            sig = _sig(st)
            if known.get(rel) == sig:
                continue
            changed += 1
            self.reread.append(rel)
            old = self._drop(rel)
            try:
                text = read_text(self.root / rel)
                if text is None:  # removed while we looked
                    continue
                ep = parse(text, rel)
            except (OSError, UnicodeDecodeError) as e:
                self.problems.append(FactFileError(f"cannot be read ({e})", path=rel))
                continue
            except OutsideVault as e:
                self.problems.append(FactFileError(e.bare_message, path=rel))
                continue
            except FactFileError as e:
                self.problems.append(e)
                continue
            parts = _parts(ep.messages)
            if sum(len(s.text) for s in ep.messages) > MAX_INDEXED:
                self.problems.append(FactFileError(
                    f"only its first {MAX_INDEXED:,} characters are searchable by `ask`; the whole"
                    " text is kept in the file (a transcript that long is best split)", path=rel))  # fmt: skip
            vanished = vanished or bool(old - {part for _, part, _ in parts})
            for i, (said, part, body) in enumerate(parts):
                cur = self.db.execute(
                    "INSERT INTO rows(path, anchor, date, time, speaker, text) VALUES(?,?,?,?,?,?)",
                    (rel, said.anchor, ep.date, said.time, said.speaker, part),
                )
                # The messages either side: the question a passage answers, the answer it got.
                before = parts[i - 1][2] if i > 0 else ""
                after = parts[i + 1][2] if i + 1 < len(parts) else ""
                self.db.execute(
                    "INSERT INTO fts(rowid, body, before, after) VALUES(?, ?, ?, ?)",
                    (cur.lastrowid, body, before, after),
                )
            self.db.execute("INSERT OR REPLACE INTO files VALUES(?, ?)", (rel, sig))
        for rel in gone:
            changed += 1
            self.reread.append(rel)
            vanished = vanished or bool(self._drop(rel))
            self.db.execute("DELETE FROM files WHERE path=?", (rel,))
        if vanished:
            # FTS5 keeps a deleted row's words in older segments until they are merged: merge
            # now, so words that were edited out or forgotten leave the file (secure_delete
            # zeroes the freed pages). Appending to an episode removes nothing and skips this.
            self.db.execute("INSERT INTO fts(fts) VALUES('optimize')")
        if changed:
            self.db.commit()
            self._speakers = None
        return changed

    def _drop(self, rel: str) -> set[str]:
        """Remove a file's passages; the texts they held."""
        rows = self.db.execute("SELECT id, text FROM rows WHERE path=?", (rel,)).fetchall()
        self.db.executemany("DELETE FROM fts WHERE rowid=?", [(i,) for i, _ in rows])
        self.db.execute("DELETE FROM rows WHERE path=?", (rel,))
        return {text for _, text in rows}

    def _informative(self, words: list[str]) -> list[str]:
        """The words less those in more than a fifth of the passages of a large index, unless
        nothing else is left: they barely move BM25 and cost most of its time."""
        if len(words) < 2:
            return words
        total = self.db.execute("SELECT count(*) FROM rows").fetchone()[0]
        if total < COMMON_AFTER:
            return words
        stems = self._stems(words)
        marks = ",".join("?" * len(stems))
        docs = dict(self.db.execute(f"SELECT term, doc FROM vocab WHERE term IN ({marks})", stems))
        rare = [w for w, s in zip(words, stems, strict=True) if docs.get(s, 0) * 5 <= total]
        return rare or words

    def _stems(self, words: list[str]) -> list[str]:
        """Each word as the index holds it (the vocabulary lists stems: 'pottery' → 'potteri'),
        told by a table in memory with the same tokenizer, kept apart from the index's file."""
        if self._stemmer is None:
            self._stemmer = sqlite3.connect(":memory:")
            self._stemmer.executescript(_STEMS_DDL)
        db = self._stemmer
        db.executemany("INSERT INTO scratch(rowid, word) VALUES(?, ?)", enumerate(words))
        held = dict(db.execute("SELECT doc, term FROM held"))
        db.execute("DELETE FROM scratch")
        return [held.get(i, w) for i, w in enumerate(words)]

    def speakers(self) -> list[str]:
        """Everyone who said something, by name (read once per index, then kept)."""
        if self._speakers is None:
            self._speakers = [r[0] for r in self.db.execute(
                "SELECT DISTINCT speaker FROM rows ORDER BY speaker")]  # fmt: skip
        return self._speakers

    def search(self, question: str | Iterable[str], *, speaker: str | None = None, limit: int = 3,
               near: tuple[str, str] | None = None, only: Iterable[str] | None = None) -> list[Passage]:  # fmt: skip
        """The passages that best match a question (its text, or its query tokens) by BM25;
        those by `speaker`, and those said within `near` (a period the question names, as ISO
        days), rank higher. `only`: the passages said by these speakers, none other."""
        asked = tokens(question, query=True) if isinstance(question, str) else list(question)
        words = sorted(set(asked))
        if speaker:
            words = [w for w in words if w not in set(tokens(speaker))]
        if not words:
            return []
        words = self._informative(words)
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        who = sorted(set(only)) if only is not None else None
        among = f" AND rowid IN (SELECT id FROM rows WHERE speaker IN ({','.join('?' * len(who))}))" if who else ""
        if who == []:
            return []
        # Rank inside FTS5 first (its C code, no join), then read only the best rows.
        best = self.db.execute(
            f"SELECT rowid, bm25(fts, 1.0, {BEFORE_WEIGHT}, {AFTER_WEIGHT}) AS rank FROM fts"
            f" WHERE fts MATCH ?{among} ORDER BY rank, rowid LIMIT ?",
            (match, *(who or []), limit * (30 if near else 10)),
        ).fetchall()
        rows = [
            (*self.db.execute(
                "SELECT path, anchor, date, time, speaker, text FROM rows WHERE id=?", (i,)
            ).fetchone(), rank)
            for i, rank in best
        ]  # fmt: skip
        found = [
            Passage(p, a, d, t, s, x, -rank * (SPEAKER_BOOST if s == speaker else ASKED_BOOST if speaker
                    and self._asked(p, a, s, x, speaker) else 1.0)
                    * (DATE_BOOST if near and _said_in(near, d, x) else 1.0))
            for p, a, d, t, s, x, rank in rows
        ]  # fmt: skip
        found.sort(key=lambda p: -p.score)
        return found[:limit]

    def _asked(self, path: str, anchor: str, by: str, text: str, speaker: str) -> bool:
        """Whether a passage by someone else is a question that `speaker` answered next."""
        if by == speaker or not text.rstrip().endswith(("?", "？")):
            return False
        reply = self.reply_to(Passage(path, anchor, "", None, by, text))
        return reply is not None and reply.speaker == speaker


    def reply_to(self, p: Passage) -> Passage | None:
        """The message after `p` in its episode (its first part), when someone else said it:
        the answer to a question passage. None at the end of the episode."""
        row = self.db.execute(
            "SELECT anchor, date, time, speaker, text FROM rows WHERE path=? AND id > (SELECT"
            " max(id) FROM rows WHERE path=? AND anchor=?) ORDER BY id LIMIT 1",
            (p.episode, p.episode, p.anchor),
        ).fetchone()
        if row is None or row[3] == p.speaker:
            return None
        return Passage(p.episode, row[0], row[1], row[2], row[3], row[4], p.score, reply=True)


def _said_in(near: tuple[str, str], day: str, text: str) -> bool:
    """Whether a passage said on `day` speaks of a time within `near`: said then, or said
    later of then ('last month', 'yesterday')."""
    if near[0] <= day <= near[1]:
        return True
    if day < near[0]:
        return False
    from mdmem.extract.dates import find_when  # compiled only when a question names a period

    found = find_when(text, day)
    return found is not None and near[0] <= found.start <= near[1]


def named_speaker(question: str, speakers: list[str]) -> str | None:
    """The speaker a question names ('When did Caroline …' → 'Caroline'), if exactly one."""
    said = set(fold(question).replace("'s", " ").split())
    found = [s for s in speakers if fold(s).split() and fold(s).split()[0] in said]
    return found[0] if len(found) == 1 else None
