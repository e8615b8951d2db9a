# Loops of the v6 RGB kernel (fused_jpeg_kernel_tc<3, 4>) in `cuobjdump -sass` output (stdin): every backward branch
# target..branch span, its length in instructions and its opcode counts (the longest: the interior strip loop).
import collections, re, sys
fn, inst = None, {}
for line in sys.stdin:
    if "Function :" in line:
        fn = line.split("Function :")[1].strip()
        continue
    m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)([^;]*);", line)
    if m and fn and "fused_jpeg_kernel_tc" in fn and "ILi3ELi4E" in fn:
        inst[int(m.group(1), 16)] = (m.group(3), m.group(4))
addrs = sorted(inst)
loops = []
for a in addrs:
    op, args = inst[a]
    if op.startswith("BRA"):
        t = re.search(r"0x([0-9a-f]+)", args)
        if t and int(t.group(1), 16) < a:
            body = [x for x in addrs if int(t.group(1), 16) <= x <= a]
            loops.append((len(body), int(t.group(1), 16), a, body))
print("RGB v6 kernel: %d instructions" % len(addrs))
for n, s, e, body in sorted(loops, reverse=True)[:3]:
    c = collections.Counter(inst[x][0].split(".")[0] for x in body)
    print("loop %#x-%#x: %d instructions; %s" % (s, e, n, ", ".join("%s %d" % kv for kv in c.most_common(22))))
