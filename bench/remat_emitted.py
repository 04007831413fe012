#!/usr/bin/env python3
"""Cheap values of an emitted straight-line kernel computed again before each later reader,
each copy an inline-PTX operation (asm volatile) that NVVM cannot merge back into the first, to
see what ptxas then holds. Offline only: the rematerialization in the JIT's IR was undone by
NVVM's CSE (bench/RESULTS.md). A value is copied where it is an add, subtraction, product or
negation of literals and values that stay live at least as long, and is read in more than one
statement; `plain` writes the copies as ordinary C, which NVVM merges.

    remat_emitted.py IN.cu OUT.cu [asm|plain]
    (IN.cu from kinetics_tape_columns_ptxas --write DIR; then
     nvcc -cubin -arch=sm_90 -O3 --fmad=false -Xptxas -v OUT.cu)
"""
import collections
import re
import sys

src = open(sys.argv[1]).read().split("\n")
mode = sys.argv[3] if len(sys.argv) > 3 else "asm"
stmt = re.compile(r"^(\s*)const double (t\d+) = (.+);$")
operand = r"(t\d+|\(?-?[0-9.eE+-]+\)?)"
binop = re.compile(rf"^{operand} ([+*-]) {operand}$")
neg = re.compile(r"^-(t\d+)$")
name = re.compile(r"\bt\d+\b")

defs, uses = {}, collections.defaultdict(list)
for i, line in enumerate(src):
    m = stmt.match(line)
    text = m.group(3) if m else line
    if m:
        defs[m.group(2)] = (i, m.group(3))
    for t in set(name.findall(text)):
        uses[t].append(i)
last = {t: max(uses[t]) if uses[t] else defs[t][0] for t in defs}

again = {}
for t in sorted(defs, key=lambda t: defs[t][0]):
    rhs = defs[t][1]
    if len(set(uses[t])) < 2:
        continue
    m = binop.match(rhs)
    if m:
        op, ops = m.group(2), [m.group(1), m.group(3)]
    elif neg.match(rhs):
        op, ops = "neg", [neg.match(rhs).group(1)]
    else:
        continue
    if all(not x.startswith("t") or (x in defs and x not in again and last[x] >= last[t])
           for x in ops):
        again[t] = (op, ops)

ptx = {"*": "mul", "+": "add", "-": "sub"}
helpers = "".join(
    f"static __device__ __forceinline__ double dj_again_{f}(double a, double b) {{ double r; "
    f'asm volatile("{f}.rn.f64 %0, %1, %2;" : "=d"(r) : "d"(a), "d"(b)); return r; }}\n'
    for f in ("mul", "add", "sub")) + (
    "static __device__ __forceinline__ double dj_again_neg(double a) { double r; "
    'asm volatile("neg.f64 %0, %1;" : "=d"(r) : "d"(a)); return r; }\n')
first_use = {t: min(uses[t]) for t in again}
out, copies, placed = [], 0, False
for i, line in enumerate(src):
    if not placed and line.startswith("static __device__"):
        out.append(helpers)
        placed = True
    m = stmt.match(line)
    text = m.group(3) if m else line
    for t in sorted(t for t in set(name.findall(text)) if t in again and first_use[t] != i):
        op, ops = again[t]
        copies += 1
        copy = f"{t}_r{copies}"
        if op == "neg":
            expr = f"dj_again_neg({ops[0]})" if mode == "asm" else f"-{ops[0]}"
        else:
            expr = f"dj_again_{ptx[op]}({ops[0]}, {ops[1]})" if mode == "asm" else \
                f"{ops[0]} {op} {ops[1]}"
        indent = re.match(r"^(\s*)", line).group(1)
        out.append(f"{indent}const double {copy} = {expr};")
        text = re.sub(rf"\b{t}\b", copy, text)
    out.append(f"{m.group(1)}const double {m.group(2)} = {text};" if m else text)
open(sys.argv[2], "w").write("\n".join(out))
print(f"{len(again)} values computed again, {copies} copies", file=sys.stderr)
