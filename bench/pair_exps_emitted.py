#!/usr/bin/env python3
"""The exps of an emitted kinetics tapes' launch called two at a time: each dj_exp(b) whose
result is not yet needed waits for the next dj_exp(d) whose argument does not depend on it, and
the two become one call of dj_exp2(b, d), an out-of-line function computing both (the same
table method as dj_exp, jit/driver_text.cpp). Statements that read the first result move after
the pair, in order; after LIMIT of them the exp is called alone. To see whether ptxas saves
fewer registers to local memory per exp when a call computes two (dj_exp saves 16 B a call,
which reach L2: bench/RESULTS.md). Offline only.

    pair_exps_emitted.py IN.cu OUT.cu [LIMIT]     (LIMIT default 40)
    (IN.cu from kinetics_tape_columns_ptxas --form columns --only k0_1 --write DIR; then
     nvcc -ptx -arch=sm_90 -O3 --fmad=false OUT.cu and ptxas -arch=sm_90 -O3 -v on the PTX)
"""
import re
import sys

EXP2 = r"""struct dj_d2 { double x, y; };
static __device__ __noinline__ double dj_exp_alone(double a) { return exp(a); }
static __device__ __noinline__ dj_d2 dj_exp2(double a, double b) {
  dj_d2 o;
  if (!(fabs(a) < 707.0) || !(fabs(b) < 707.0)) {
    o.x = dj_exp_alone(a);
    o.y = dj_exp_alone(b);
    return o;
  }
  const double shifter = 6755399441055744.0;
  const double ka = fma(a, 184.66496523378731, shifter), kb = fma(b, 184.66496523378731, shifter);
  const int na = __double2loint(ka), nb = __double2loint(kb);
  const double ta = ka - shifter, tb = kb - shifter;
  double ra = fma(ta, -6.93147180369123816490e-01 / 128, a);
  double rb = fma(tb, -6.93147180369123816490e-01 / 128, b);
  ra = fma(ta, -1.90821492927058770002e-10 / 128, ra);
  rb = fma(tb, -1.90821492927058770002e-10 / 128, rb);
  double qa = fma(ra, 1.0 / 120, 1.0 / 24), qb = fma(rb, 1.0 / 120, 1.0 / 24);
  qa = fma(qa, ra, 1.0 / 6);
  qb = fma(qb, rb, 1.0 / 6);
  qa = fma(qa, ra, 0.5);
  qb = fma(qb, rb, 0.5);
  const double pa = fma(qa, ra * ra, ra), pb = fma(qb, rb * rb, rb);
  const double sa = __ldg(&dj_exp_2j[na & 127]), sb = __ldg(&dj_exp_2j[nb & 127]);
  const double ea = fma(sa, pa, sa), eb = fma(sb, pb, sb);
  o.x = __hiloint2double(__double2hiint(ea) + ((na >> 7) << 20), __double2loint(ea));
  o.y = __hiloint2double(__double2hiint(eb) + ((nb >> 7) << 20), __double2loint(eb));
  return o;
}
"""

EXP_CALL = re.compile(r"^  const double (t\d+) = dj_exp\((t\d+)\);$")
DEF = re.compile(r"^  const double (t\d+) = ")
NAME = re.compile(r"\bt\d+\b")


def paired(body, limit, counts):
    """The chunk's statements (one a line) with exps paired; counts[0] pairs, counts[1] alone."""
    out, pending, moved, tainted = [], None, [], set()

    def alone():
        nonlocal pending, moved, tainted
        out.append(pending[0])
        out.extend(moved)
        counts[1] += 1
        pending, moved, tainted = None, [], set()

    for line in body:
        d = DEF.match(line)
        defined = d.group(1) if d else None
        reads = set(NAME.findall(line)) - {defined}
        call = EXP_CALL.match(line)
        if pending is None:
            if call:
                pending, tainted = (line, call.group(1), call.group(2)), {call.group(1)}
            else:
                out.append(line)
        elif reads & tainted:
            moved.append(line)
            if defined:
                tainted.add(defined)
            if len(moved) > limit:
                alone()
        elif call:
            a1, b1, a2, b2 = pending[1], pending[2], call.group(1), call.group(2)
            out += [f"  const dj_d2 p_{a1} = dj_exp2({b1}, {b2});",
                    f"  const double {a1} = p_{a1}.x;", f"  const double {a2} = p_{a1}.y;"]
            out.extend(moved)
            counts[0] += 1
            pending, moved, tainted = None, [], set()
        else:
            out.append(line)
    if pending is not None:
        alone()
    return out


def main():
    src = open(sys.argv[1]).read()
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    lines, out, counts, i = src.split("\n"), [], [0, 0], 0
    while i < len(lines):
        out.append(lines[i])
        if lines[i].startswith("  (void)x; (void)v;"):  # a chunk's body follows, to its "}"
            j = lines.index("}", i + 1)
            out.extend(paired(lines[i + 1:j], limit, counts))
            i = j
            continue
        i += 1
    text = "\n".join(out)
    anchor = "static __device__ __noinline__ double dj_log(double a)"
    if anchor not in text:
        sys.exit("pair_exps_emitted.py: no dj_log in " + sys.argv[1])
    open(sys.argv[2], "w").write(text.replace(anchor, EXP2 + anchor, 1))
    print(f"{counts[0]} pairs, {counts[1]} exps alone", file=sys.stderr)


main()
