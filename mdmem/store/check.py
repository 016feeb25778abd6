"""What `mdmem check` reports: unfinished transactions, rules.yaml, fact files that do not
parse, symbolic links in the vault's folders, a dependency cycle; and, as warnings, attribute
names rules.yaml does not declare that look like a slip (`names.name_warnings`)."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from mdmem import boundary
from mdmem.errors import MdmemError
from mdmem.files import read_text
from mdmem.model.episode import parse as parse_episode
from mdmem.model.graph import Graph
from mdmem.store.guards import Problem, unfinished_problems
from mdmem.store.names import name_warnings
from mdmem.store.rules_cache import load_rules_cached
from mdmem.store.snapshot import Snapshot
from mdmem.store.walk import EMPTY_PROBLEM, empty_written, sig_of, stat_sig

Vault = Any  # a store.vault.Vault (not imported: it imports this module)

# The folders mdmem reads and writes, and how deep a link in them is looked for.
WATCHED = (("facts", 2), ("episodes", 2), (".mdmem", 1))


def check(v: Vault) -> list[Problem]:
    """Every problem with the rules, the fact files, the learned graph and links."""
    seen = len(v.notes)
    v.settle()
    unfinished = unfinished_problems(v.meta, v.notes[seen:])
    try:
        rules = load_rules_cached(v.meta, v.root / "rules.yaml")
    except MdmemError as e:
        return [*unfinished, *link_problems(v), Problem("rules.yaml", e.line, e.bare_message)]
    v._rules = rules
    snap = v._refreshed()  # reads no fact but those a dependency cycle can pass through
    linked = link_problems(v, snap)
    links = {p.path for p in linked}
    problems = [*unfinished, *linked, *(Problem(*p) for p in snap.problems() if p[0] not in links)]
    problems += [Problem(rel, None, EMPTY_PROBLEM) for rel in empty_written(v.root, _absent(v, snap))]
    problems += episode_problems(v.root, links)
    facts = snap.cycle_facts()
    # Rules' edges alone cannot close a cycle (validation refuses one); learned ones can.
    cycle = Graph(rules, facts).cycle() if any(f.depends_on for f in facts.values()) else None
    if cycle:
        culprit = next((k for k in cycle if facts.get(k) and facts[k].depends_on), cycle[-1])
        problems.append(Problem(f"facts/{culprit}.md", None,
                                f"dependency cycle {' → '.join(cycle)}; remove one 'depends_on' entry"))  # fmt: skip
    return problems


def _absent(v: Vault, snap: Snapshot) -> list[str]:
    """The files mdmem wrote that the walk did not list (emptied, or deleted). Worked out once
    for a walk that found nothing changed and this very manifest (written atomically: a new
    inode each time), not by reading its 100,000 lines at every check."""
    key = str(stat_sig(v.manifest.path))
    known = snap.recalled("absent", key)
    if known is not None:
        return json.loads(known)
    present = set(snap.paths())  # every file the walk listed; an empty one it passed over is not
    absent = [rel for rel in v.manifest.data if rel not in present]
    snap.remember("absent", key, json.dumps(absent, ensure_ascii=False))
    return absent


def link_problems(v: Vault, snap: Snapshot | None = None) -> list[Problem]:
    """Every symbolic link in rules.yaml's place and the folders mdmem reads and writes: one
    leading out is never followed (`boundary`); one inside is, but a write through it lands in
    the file it points to, and git or a sync tool may not keep it as a link. With the snapshot
    of a walk that changed nothing, facts/ is looked through only if an entity folder changed
    since a look that found no link there (`_fact_links`)."""
    found = boundary.links(v.root, [("rules.yaml", 0)])
    found += _fact_links(v.root, snap) if snap is not None else boundary.links(v.root, [WATCHED[0]])
    found += boundary.links(v.root, WATCHED[1:])
    out = []
    for rel, target, inside in found:
        if inside:
            why = (f"is a symbolic link to {target} (inside the vault); mdmem follows it, but a"
                   " write lands in what it points to: replace the link with a real file or folder")  # fmt: skip
        else:
            why = (f"is a symbolic link to {target}, outside the vault; mdmem neither reads nor"
                   " writes through it: replace the link with the file or folder itself")  # fmt: skip
        out.append(Problem(rel, None, why))
    return out


def _fact_links(root: Path, snap: Snapshot) -> list[tuple[str, str, bool]]:
    """`boundary.links` of facts/, without listing 100,000 files when nothing could have made a
    link there: a link is made by adding an entry to a folder, which moves that folder's mtime
    and ctime (no one can set a ctime). So the signatures of facts/ and of each entity folder,
    noted after a look that found no link, stand for that look while they stay the same (and
    while the walk's files do: the note is the settled walk's). Any link found: looked for
    every time, as its target decides what it is."""
    key = _folder_sigs(root)
    if key is not None and snap.recalled("no-fact-links", key) is not None:
        return []
    found = boundary.links(root, [WATCHED[0]])
    if not found and key is not None:
        snap.remember("no-fact-links", key, "")
    return found


def _folder_sigs(root: Path) -> str | None:
    """One digest of the stat signatures of facts/ and of every entry in it (None when facts/
    or an entity folder is a link, or they cannot be listed: then no note is used)."""
    digest = hashlib.blake2b(digest_size=16)
    try:
        if os.path.islink(root / "facts"):
            return None
        fd = boundary.open_folder(root / "facts")
    except (OSError, boundary.OutsideVault):
        return None
    try:
        st = os.fstat(fd)
        digest.update(f"{sig_of(st)}\0".encode())
        with os.scandir(fd) as it:
            names = sorted(e.name for e in it)
        for name in names:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                return None
            digest.update(f"{name}\0{sig_of(st)}\0".encode())
    except OSError:
        return None
    finally:
        os.close(fd)
    return digest.hexdigest()


def episode_problems(root: Path, links: set[str]) -> list[Problem]:
    """Each episode file that cannot be read or does not parse (a date that is not a date, a
    folder where a file should be), as `ask` would find it."""
    out = []
    for year in boundary.listdir(root / "episodes"):
        if year.startswith(".") or f"episodes/{year}" in links:
            continue
        for name in boundary.listdir(root / "episodes" / year):
            rel = f"episodes/{year}/{name}"
            if not name.endswith(".md") or name.startswith(".") or rel in links:
                continue
            try:
                text = read_text(root / rel)
                if text is not None:
                    parse_episode(text, rel)
            except IsADirectoryError:
                out.append(Problem(rel, None, "is a folder where an episode file should be: move it out of episodes/"))  # fmt: skip
            except (OSError, UnicodeDecodeError) as e:
                out.append(Problem(rel, None, f"cannot be read ({e})"))
            except MdmemError as e:
                out.append(Problem(rel, e.line, e.bare_message))
    return out


def name_problems(v: Vault) -> list[Problem]:
    """Warnings about attribute names (`names.name_warnings`), reading only the facts whose
    file name (the attribute) rules.yaml does not declare."""
    snap = v._snap or v._refreshed()  # as `check` just refreshed it, if it did
    files = {f"{a}.md" for a in v.rules.attributes}  # the file names rules.yaml declares
    walked = snap._walked  # the names of a walk that found nothing changed: no path made per file
    if walked is not None:
        rels = [f"facts/{ent}/{n}" for ent, names in walked for n in names if n not in files]
    else:
        rels = [rel for rel in snap.paths() if rel.rpartition("/")[2] not in files]  # no entry read
    if not rels:
        return []
    found = [rec[0] for rec in snap.records_of(rels).values() if rec is not None]
    facts = {f"{f.entity}/{f.attribute}": f for f in found}
    return [Problem(path, None, why, "warning") for path, why in name_warnings(v.rules, facts)]


def refused(v: Vault, key: str) -> Problem | None:
    """Why the fact file of key is not read, when it is a link out of the vault (`show` and the
    MCP `show` refuse it rather than serve what mdmem last wrote there), else None."""
    rel = f"facts/{key}.md"
    if not os.path.islink(v.root / rel):
        return None
    return next((p for p in v.scan()[1] if p.path == rel), None)
