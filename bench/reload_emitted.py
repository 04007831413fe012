#!/usr/bin/env python3
"""The concentrations of an emitted kinetics tapes' launch read again at each use instead of
held: every use of an input times a literal (Y_k / W_k) and of that times the density value
(C_k) becomes a volatile read of the input, which NVVM cannot merge, times the same factors. To
see what ptxas then spills. Offline only. The inputs are the element's array x; its name in
the chunk's source and the density value's name are arguments.

    reload_emitted.py IN.cu OUT.cu [RHO]     (RHO default t218: GRI-3.0's columns form)
    (IN.cu from kinetics_tape_columns_ptxas --form columns --only k0_1 --write DIR; then
     nvcc -cubin -arch=sm_90 -O3 --fmad=false -Xptxas -v OUT.cu)
"""
import re
import sys

src = open(sys.argv[1]).read()
rho = sys.argv[3] if len(sys.argv) > 3 else "t218"
start = src.index("DJ_NOINLINE void")  # the chunk's function
body_start = src.index("{", src.index(")", start)) + 1
end = src.index("\n}\n", body_start)
lines = src[body_start:end].split("\n")

inputs, scaled, concentrations = {}, {}, {}  # name -> index; (index, literal); (index, literal)
for line in lines:
    if m := re.match(r"\s*const double (t\d+) = x\[(\d+)\];", line):
        inputs[m.group(1)] = int(m.group(2))
    elif (m := re.match(r"\s*const double (t\d+) = (t\d+) \* ([0-9.e+-]+);", line)) and \
            m.group(2) in inputs:
        scaled[m.group(1)] = (inputs[m.group(2)], m.group(3))
    elif (m := re.match(rf"\s*const double (t\d+) = (t\d+) \* {rho};", line)) and \
            m.group(2) in scaled:
        concentrations[m.group(1)] = scaled[m.group(2)]


def reread(name):
    k, c = concentrations.get(name) or scaled[name]
    return f"(dj_reread(x + {k}) * {c}" + (f" * {rho})" if name in concentrations else ")")


replaced = 0


def substitute(m):
    global replaced
    if m.group(0) in concentrations or m.group(0) in scaled:
        replaced += 1
        return reread(m.group(0))
    return m.group(0)


out = []
for line in lines:
    m = re.match(r"(\s*const double (t\d+) = )(.*)$", line)
    if m and m.group(2) not in concentrations and m.group(2) not in scaled:
        line = m.group(1) + re.sub(r"\bt\d+\b", substitute, m.group(3))
    out.append(line)
helper = ("static __device__ __forceinline__ double dj_reread(const double* p) "
          "{ return *(volatile const double*)p; }\n")
open(sys.argv[2], "w").write(src[:start] + helper + src[start:body_start] + "\n".join(out) +
                             src[end:])
print(f"{len(scaled)} scaled inputs, {len(concentrations)} concentrations, {replaced} uses "
      "read again")
