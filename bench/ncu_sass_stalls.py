#!/usr/bin/env python3
"""Where a kernel's warps wait, from Nsight Compute's SASS source page (CSV): the sampled stalls
summed by the stalled instruction's opcode, and the long-scoreboard samples charged to the load
that feeds the stalled instruction (the nearest earlier LDL, LDG, LDS or LD writing one of its
source registers), split into local loads in the kernel, local loads in a callee's epilogue
(a callee-saved register restored before RET), global and shared loads.

    ncu_sass_stalls.py SOURCE_PAGE.csv
"""
import collections
import csv
import re
import sys

rows = list(csv.reader(open(sys.argv[1], errors="replace")))
head_at = next((i for i, r in enumerate(rows) if "Source" in r), None)
if head_at is None:
    sys.exit("no source page in " + sys.argv[1] + ": " + " | ".join(",".join(r)[:200] for r in rows[:5]))
head = rows[head_at]
body = [r for r in rows[head_at + 1:] if len(r) == len(head)]
src = head.index("Source")
def column(*names):
    for n in names:
        for i, h in enumerate(head):
            if h.strip().lower() == n.lower():
                return i
    return None
samples = column("Warp Stall Sampling (All Samples)", "Warp Stall Sampling (All Cycles)")
long_sb = next((i for i, h in enumerate(head) if h.strip().lower() in ("stall_long_sb", "long scoreboard") or "long_scoreboard" in h.lower()), None)
print("stall columns:", "; ".join(h for h in head if "stall" in h.lower() or "sampl" in h.lower())[:600])
print("columns:", len(head), "| samples:", head[samples] if samples is not None else None,
      "| long scoreboard:", head[long_sb] if long_sb is not None else None)
def num(r, i):
    try:
        return float(r[i].replace(",", "")) if i is not None else 0.0
    except ValueError:
        return 0.0
total = sum(num(r, samples) for r in body)
by_op = collections.Counter()
for r in body:
    by_op[r[src].split()[0] if r[src].split() else "?"] += num(r, samples)
print(f"instructions {len(body)}, samples {total:.0f}")
reasons = {h: sum(num(r, i) for r in body) for i, h in enumerate(head)
           if h.startswith("stall_") and "Not Issued" not in h}
print("by reason:", ", ".join(f"{h[6:]} {100 * v / max(total, 1):.1f}%"
                              for h, v in sorted(reasons.items(), key=lambda kv: -kv[1])[:8]))
print("by stalled opcode:", ", ".join(f"{op} {100 * s / max(total, 1):.1f}%" for op, s in by_op.most_common(12)))
reg = re.compile(r"\bR(\d+)\b")
def dest_and_sources(text):
    ops = text.split(None, 1)
    if len(ops) < 2:
        return [], []
    args = [a.strip() for a in ops[1].rstrip(" ;").split(",")]
    regs = [reg.findall(a) for a in args]
    if ops[0].startswith(("ST", "RED", "BRA", "EXIT", "RET", "CALL", "BAR", "ISETP", "DSETP", "FSETP")):
        return [], [int(x) for rr in regs for x in rr]
    return [int(x) for x in regs[0]], [int(x) for rr in regs[1:] for x in rr]
charged = collections.Counter()
last_ret = -1
for i, r in enumerate(body):
    text = r[src]
    if text.startswith("RET"):
        last_ret = i
    s = num(r, long_sb) if long_sb is not None else 0.0
    if s <= 0:
        continue
    _, sources = dest_and_sources(text)
    kind = "unmatched"
    for j in range(i - 1, max(-1, i - 400), -1):
        t = body[j][src]
        op = t.split()[0] if t.split() else ""
        if not op.startswith(("LDL", "LDG", "LDS", "LD.", "LD ", "LDC")) and op != "LD":
            continue
        dests, _ = dest_and_sources(t)
        wide = 2 if (".64" in op) else (4 if ".128" in op else 1)
        written = {d + k for d in dests[:1] for k in range(wide)}
        if written & set(sources):
            kind = op.split(".")[0]
            if kind == "LDL" and any(body[k][src].startswith("RET") for k in range(j, min(i, j + 40))):
                kind = "LDL before RET (callee-saved restore)"
            break
    charged[kind] += s
tl = sum(charged.values())
print(f"long-scoreboard samples {tl:.0f}:", ", ".join(f"{k} {100 * v / max(tl, 1):.1f}%" for k, v in charged.most_common()))
