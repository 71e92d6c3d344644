#!/usr/bin/env python3
"""Retrieval evaluation of `wiki-search` against SQLite FTS5 BM25 on the same data (issue 33).

Sets (each split deterministically into a *tune* part and a *held-out* part, never tuned on):

* ``tldr-desc``: English tldr pages with their description (the ``>`` lines) removed from the
  indexed page; the query is that description (without its "More information" and "See also"
  lines); alias pages ("This command is an alias of …") are left out, their description names
  another command and says nothing of its own. Target: the page.
* ``tldr-example``: one example description line of a page (a line no other page has), as written.
* ``tldr-questions``: questions written by hand (``tldr-questions.tsv``); any listed page counts.
* ``tldr-cjk``: the description queries of the Chinese, Japanese and Korean pages, on a vault of
  those pages (same construction as ``tldr-desc``).
* ``memory``: generated multi-session conversations kept as daily notes
  (``memory_conversations.py``); questions whose evidence is one or two turns. Reported: recall@10
  of the evidence note(s), MRR@10 of the first evidence note, the subsets of questions answered
  only by a note older than 90 days and of facts restated or contradicted later (for those, the
  share of questions whose newest statement ranks above every older one).

Split: a page (or question) is held out when the first 8 hex digits of the SHA-1 of its path (or
text) modulo 10 are below 3; memory conversations 0–5 are tuned on, 6–9 held out, and the held-out
ones use question phrasings the tune part never sees.

Baseline: SQLite FTS5 (Python's sqlite3), ``tokenize='porter unicode61'``, one column with the same
file text (memory: one row per chunk, chunks of the same size as ours), query = every
``\\w+`` token of the query quoted and OR-ed, ordered by ``bm25()``; the top 10 rows.

Ours: ``wiki-search --batch --max-results 10`` (memory: ``--corpus memory --memory <workspace>``,
clock at the day after the last note), the default configuration.
"""

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tarfile
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import memory_conversations  # noqa: E402

K = 10


def held_out(key):
    return int(hashlib.sha1(key.encode()).hexdigest()[:8], 16) % 10 < 3


# ----------------------------------------------------------------------------- tldr corpus


ALIAS_MARKERS = ("This command is an alias of", "别名", "エイリアス", "별칭")
SEE_ALSO = ("See also", "另请参阅", "参照", "관련 항목")


def split_page(text):
    """(page without its description block, description lines for the query, is_alias)."""
    kept, desc, alias = [], [], False
    for line in text.splitlines():
        if line.startswith(">"):
            d = line[1:].strip()
            alias = alias or any(m in d for m in ALIAS_MARKERS)
            if "<http" in d or d.startswith(SEE_ALSO) or d.startswith("More information"):
                continue
            desc.append(d.replace("`", ""))
            continue
        kept.append(line)
    page = "\n".join(kept).replace("\n\n\n", "\n\n") + "\n"
    return page, " ".join(desc).strip(), alias


def example_lines(text):
    return [l[2:].strip().rstrip(":").strip() for l in text.splitlines() if l.startswith("- ")]


def load_tldr(tarball, work):
    """Write the English vault and the CJK vault; return the raw pages per vault."""
    en = os.path.join(work, "tldr-en")
    cjk = os.path.join(work, "tldr-cjk")
    pages = {"en": {}, "cjk": {}}
    english_alias = set()
    with tarfile.open(tarball) as tar:
        members = [m for m in tar.getmembers() if m.isfile() and m.name.endswith(".md")]
        raw = {}
        for m in members:
            parts = m.name.split("/")
            if len(parts) != 4:
                continue
            lang = parts[1][len("pages"):].lstrip(".") or "en"
            if lang not in ("en", "zh", "ja", "ko"):
                continue
            raw[(lang, parts[2], parts[3])] = tar.extractfile(m).read().decode("utf-8")
    for (lang, platform, name), text in raw.items():
        if lang == "en" and any(a in text for a in ALIAS_MARKERS[:1]):
            english_alias.add((platform, name))
    for (lang, platform, name), text in sorted(raw.items()):
        page, desc, alias = split_page(text)
        if lang == "en":
            rel = f"concepts/{platform}/{name}"
            vault, key = en, "en"
        else:
            rel = f"concepts/{lang}/{platform}/{name}"
            vault, key = cjk, "cjk"
            alias = alias or (platform, name) in english_alias
        path = os.path.join(vault, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(page)
        pages[key][rel] = (text, page, desc, alias, lang, f"{platform}/{name[:-3]}")
    for v in (en, cjk):
        os.makedirs(os.path.join(v, ".openclaw-wiki"), exist_ok=True)
    return en, cjk, pages


def tldr_sets(pages, questions_file, limit, rng_seed=33):
    sets = {}
    # Description queries.
    for key, name in (("en", "tldr-desc"), ("cjk", "tldr-cjk")):
        qs = []
        for rel, (_, _, desc, alias, lang, _) in sorted(pages[key].items()):
            if alias or len(desc) < 3:
                continue
            qs.append({"query": desc, "targets": [rel], "split": "held-out" if held_out(rel) else "tune", "lang": lang})
        sets[name] = qs
    # Example lines that occur on exactly one page.
    count = Counter(l.lower() for _, (text, _, _, _, _, _) in pages["en"].items() for l in set(example_lines(text)))
    rng = random.Random(rng_seed)
    qs = []
    for rel, (text, _, _, _, _, _) in sorted(pages["en"].items()):
        lines = [l for l in example_lines(text) if count[l.lower()] == 1]
        if lines:
            qs.append({"query": rng.choice(lines), "targets": [rel], "split": "held-out" if held_out(rel) else "tune"})
    sets["tldr-example"] = qs
    # Hand-written questions.
    by_short = {v[5]: rel for rel, v in pages["en"].items()}
    qs = []
    with open(questions_file) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            q, targets = line.split("\t")
            rels = [by_short[t] for t in targets.split() if t in by_short]
            if rels:
                qs.append({"query": q, "targets": rels, "split": "held-out" if held_out(q) else "tune"})
    sets["tldr-questions"] = qs
    if limit:
        for name, qs in sets.items():
            if len(qs) > limit:
                sets[name] = sorted(random.Random(name).sample(qs, limit), key=lambda q: q["query"])
    return sets


# ----------------------------------------------------------------------------- runners


def tokens(q):
    seen = []
    for t in re.findall(r"\w+", q.lower()):
        if t not in seen:
            seen.append(t)
    return seen


class Fts5:
    """SQLite FTS5 BM25 with the Porter stemmer, OR queries."""

    def __init__(self, docs):
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE VIRTUAL TABLE t USING fts5(path UNINDEXED, body, tokenize='porter unicode61')")
        self.db.executemany("INSERT INTO t(path, body) VALUES (?, ?)", docs)

    def search(self, q):
        toks = tokens(q)
        if not toks:
            return []
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in toks)
        rows = self.db.execute("SELECT path FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (match, K)).fetchall()
        return [r[0] for r in rows]


def vault_docs(vault):
    docs = []
    for root, _, files in os.walk(vault):
        if ".openclaw-wiki" in root:
            continue
        for f in files:
            p = os.path.join(root, f)
            with open(p) as fh:
                docs.append((os.path.relpath(p, vault), fh.read()))
    return docs


def run_ours(binary, vault, queries, extra=(), env=None):
    stdin = "".join(q.replace("\n", " ").strip() + "\n" for q in queries)
    e = dict(os.environ, **(env or {}))
    e.pop("WIKI_VAULT", None)
    e.pop("WIKI_AGENT", None)
    e["WIKI_SEARCH_SERVER"] = "off"
    # First run builds the index; the timed run is the second.
    cmd = [binary, "--vault", vault, "--batch", "--max-results", str(K)] + list(extra)
    subprocess.run(cmd, input=stdin.splitlines()[0] + "\n", capture_output=True, text=True, env=e)
    t = time.perf_counter()
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=e)
    dt = time.perf_counter() - t
    if p.returncode not in (0, 1):
        sys.exit(f"{binary} failed ({p.returncode}): {p.stderr}")
    out = [json.loads(l)["paths"] for l in p.stdout.splitlines() if l.strip()]
    if len(out) != len(queries):
        sys.exit(f"{binary}: {len(out)} answers for {len(queries)} queries")
    return out, dt / max(1, len(queries))


def run_fts(fts, queries):
    t = time.perf_counter()
    out = [fts.search(q) for q in queries]
    return out, (time.perf_counter() - t) / max(1, len(queries))


# ----------------------------------------------------------------------------- metrics


def rr(paths, targets):
    for i, p in enumerate(paths[:K]):
        if p in targets:
            return 1.0 / (i + 1)
    return 0.0


def hit(paths, targets):
    return 1.0 if any(p in targets for p in paths[:K]) else 0.0


def score_tldr(answers, qs):
    out = {}
    for split in ("tune", "held-out"):
        idx = [i for i, q in enumerate(qs) if q["split"] == split]
        if not idx:
            continue
        targets = [set(qs[i]["targets"]) for i in idx]
        out[split] = {
            "n": len(idx),
            "mrr": sum(rr(answers[i], t) for i, t in zip(idx, targets)) / len(idx),
            "recall": sum(hit(answers[i], t) for i, t in zip(idx, targets)) / len(idx),
        }
    return out


def score_memory(answers, qs):
    """recall@10 of the evidence notes, MRR@10 of the first one, and the subsets."""
    out = {}
    for split in ("tune", "held-out"):
        idx = [i for i, q in enumerate(qs) if q["split"] == split]
        if not idx:
            continue

        def recall(i):
            ev = qs[i]["evidence"]
            return sum(1 for e in ev if e in answers[i][:K]) / len(ev)

        def newest_first(i):
            a = answers[i][:K]
            new = qs[i]["evidence"]
            old = qs[i]["superseded"]
            if not any(e in a for e in new):
                return 0.0
            first_new = min(a.index(e) for e in new if e in a)
            return 1.0 if all(o not in a or a.index(o) > first_new for o in old) else 0.0

        r = {
            "n": len(idx),
            "recall": sum(recall(i) for i in idx) / len(idx),
            "mrr": sum(rr(answers[i], set(qs[i]["evidence"])) for i in idx) / len(idx),
        }
        old = [i for i in idx if qs[i]["old_only"]]
        upd = [i for i in idx if qs[i]["superseded"]]
        if old:
            r["old_n"] = len(old)
            r["old_recall"] = sum(recall(i) for i in old) / len(old)
        if upd:
            r["upd_n"] = len(upd)
            r["upd_newest_first"] = sum(newest_first(i) for i in upd) / len(upd)
        out[split] = r
    return out


# ----------------------------------------------------------------------------- memory


def chunk_lines(text, chunk_tokens=400, overlap=80):
    """The memory chunker of wiki-search (crate docs, memory.rs): line ranges, 1-based."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines = lines[:-1]

    def ntok(line):
        n = 0
        for w in line.split():
            cjk = sum(1 for c in w if is_cjk(c))
            n += max(cjk, 1) if cjk else 1
        return n

    toks = [ntok(l) for l in lines]
    out, start = [], 0
    while start < len(lines):
        end, total = start, 0
        while end < len(lines):
            total += toks[end]
            end += 1
            if total >= chunk_tokens:
                break
        out.append((start, end))
        if end >= len(lines):
            break
        nxt, ov = end, 0
        while nxt > start + 1 and ov < overlap:
            nxt -= 1
            ov += toks[nxt]
        start = max(nxt, start + 1)
    return [("\n".join(lines[a:b])) for a, b in out]


def is_cjk(c):
    o = ord(c)
    return 0x3040 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF


def memory_eval(binary, compare, work, conversations, extra_env):
    results = {"ours": [], "fts5": [], "compare": []}
    qs_all = []
    times = {"ours": [], "fts5": [], "compare": []}
    for c in range(conversations):
        split = "tune" if c < 6 else "held-out"
        ws = os.path.join(work, f"memory-{c}")
        vault = os.path.join(work, f"memory-vault-{c}")
        shutil.rmtree(ws, ignore_errors=True)
        shutil.rmtree(vault, ignore_errors=True)
        os.makedirs(os.path.join(vault, ".openclaw-wiki"))
        conv = memory_conversations.generate(seed=1000 + c, phrasing="tune" if split == "tune" else "held-out")
        for rel, text in conv["notes"].items():
            p = os.path.join(ws, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(text)
        qs = [dict(q, split=split) for q in conv["questions"]]
        queries = [q["query"] for q in qs]
        env = dict(extra_env, WIKI_NOW=conv["now"])
        ours, t = run_ours(binary, vault, queries, ["--corpus", "memory", "--memory", ws], env)
        results["ours"] += ours
        times["ours"].append(t)
        if compare:
            cmp_, t = run_ours(compare, vault, queries, ["--corpus", "memory", "--memory", ws], env)
            results["compare"] += cmp_
            times["compare"].append(t)
        docs = [(rel, chunk) for rel, text in sorted(conv["notes"].items()) for chunk in chunk_lines(text)]
        fts = Fts5(docs)
        f, t = run_fts(fts, queries)
        results["fts5"] += f
        times["fts5"].append(t)
        qs_all += qs
    scores = {k: score_memory(v, qs_all) for k, v in results.items() if v}
    return scores, {k: sum(v) / len(v) for k, v in times.items() if v}, qs_all, results


# ----------------------------------------------------------------------------- report


def fmt(x):
    return f"{x:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="wiki-search binary to evaluate")
    ap.add_argument("--compare", help="another wiki-search binary evaluated on the same data")
    ap.add_argument("--tldr", required=True, help="tldr-pages tarball")
    ap.add_argument("--work", required=True, help="scratch directory (emptied)")
    ap.add_argument("--sets", default="tldr-desc,tldr-example,tldr-questions,tldr-cjk,memory")
    ap.add_argument("--limit", type=int, default=0, help="at most this many queries per tldr set (0: all)")
    ap.add_argument("--conversations", type=int, default=10)
    ap.add_argument("--json", help="write the scores as JSON here")
    ap.add_argument("--misses", help="write the queries ours misses (rank > 1) as JSON Lines here")
    args = ap.parse_args()
    wanted = args.sets.split(",")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    rows, report = [], {}
    misses = []
    tldr_wanted = [s for s in wanted if s.startswith("tldr")]
    if tldr_wanted:
        en, cjk, pages = load_tldr(args.tldr, args.work)
        sets = tldr_sets(pages, os.path.join(HERE, "tldr-questions.tsv"), args.limit)
        fts = {"en": Fts5(vault_docs(en)), "cjk": Fts5(vault_docs(cjk))}
        for name in tldr_wanted:
            qs = sets[name]
            vault, key = (cjk, "cjk") if name == "tldr-cjk" else (en, "en")
            queries = [q["query"] for q in qs]
            ours, t_ours = run_ours(args.bin, vault, queries)
            base, t_fts = run_fts(fts[key], queries)
            res = {"ours": score_tldr(ours, qs), "fts5": score_tldr(base, qs)}
            times = {"ours": t_ours, "fts5": t_fts}
            if args.compare:
                cmp_, t_cmp = run_ours(args.compare, vault, queries)
                res["compare"] = score_tldr(cmp_, qs)
                times["compare"] = t_cmp
            report[name] = {"scores": res, "ms_per_query": {k: v * 1000 for k, v in times.items()}}
            rows.append((name, res, times))
            for q, a, b in zip(qs, ours, base):
                tg = set(q["targets"])
                if rr(a, tg) < 1.0:
                    misses.append({"set": name, "split": q["split"], "query": q["query"], "targets": q["targets"],
                                   "ours": a[:5], "fts5": b[:5], "rr": rr(a, tg), "rr_fts5": rr(b, tg)})
    if "memory" in wanted:
        scores, times, mqs, answers = memory_eval(args.bin, args.compare, args.work, args.conversations, {})
        for q, a, b in zip(mqs, answers["ours"], answers["fts5"]):
            ev = set(q["evidence"])
            if rr(a, ev) < 1.0:
                misses.append({"set": "memory", "split": q["split"], "query": q["query"], "targets": q["evidence"],
                               "evidence_lines": q["evidence_lines"], "superseded": q["superseded"],
                               "ours": a[:5], "fts5": b[:5], "rr": rr(a, ev), "rr_fts5": rr(b, ev)})
        report["memory"] = {"scores": scores, "ms_per_query": {k: v * 1000 for k, v in times.items()}}
        rows.append(("memory", scores, times))
    print_table(rows, bool(args.compare))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1, sort_keys=True)
    if args.misses:
        with open(args.misses, "w") as f:
            for m in misses:
                f.write(json.dumps(m, ensure_ascii=False) + "\n")


def print_table(rows, compare):
    head = "| set | split | queries | ours MRR@10 | ours R@10 | FTS5 MRR@10 | FTS5 R@10 |"
    sep = "| --- | --- | --- | --- | --- | --- | --- |"
    if compare:
        head += " compared build MRR@10 | compared build R@10 |"
        sep += " --- | --- |"
    print(head)
    print(sep)
    extra = []
    for name, res, times in rows:
        for split in ("tune", "held-out"):
            if split not in res["ours"]:
                continue
            o, f = res["ours"][split], res["fts5"][split]
            line = f"| {name} | {split} | {o['n']} | {fmt(o['mrr'])} | {fmt(o['recall'])} | {fmt(f['mrr'])} | {fmt(f['recall'])} |"
            if compare:
                c = res["compare"][split]
                line += f" {fmt(c['mrr'])} | {fmt(c['recall'])} |"
            print(line)
            if name == "memory":
                for key, label in (("old_recall", "answered only by a note > 90 days old: R@10"),
                                   ("upd_newest_first", "restated or contradicted later: newest statement first")):
                    if key in o:
                        n = o["old_n"] if key == "old_recall" else o["upd_n"]
                        cells = f"{fmt(o[key])} | {fmt(f[key])}"
                        if compare:
                            cells += f" | {fmt(res['compare'][split][key])}"
                        extra.append(f"| memory {split}: {label} | {n} | {cells} |")
        t = ", ".join(f"{k} {v * 1000:.2f} ms" for k, v in times.items())
        extra.append(f"| {name}: mean time per query | | {t} |")
    print()
    print("| subset | queries | ours | FTS5 |" + (" compared build |" if compare else ""))
    print("| --- | --- | --- | --- |" + (" --- |" if compare else ""))
    for e in extra:
        print(e)


if __name__ == "__main__":
    main()
