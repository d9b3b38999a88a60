#!/usr/bin/env python3
"""Summarises a scripts/bench/server-profile run: usage jfr_summary.py OUT_DIR SERVER_ID...

Reads OUT_DIR/threads-<id>-{start,end}.txt (tid comm ticks), OUT_DIR/<id>.json (jfr print --json of
jdk.ExecutionSample, jdk.ObjectAllocationSample, jdk.GarbageCollection), OUT_DIR/window-{start,end}.txt and the
YCSB status lines of the run (bench/**/run/dc0-c0/stderr.txt) for the operations in the window. Writes markdown.
"""
import collections, datetime, glob, json, os, re, sys

out, servers = sys.argv[1], sys.argv[2:]
TCK = os.sysconf("SC_CLK_TCK")
t0 = float(open(f"{out}/window-start.txt").read())
t1 = float(open(f"{out}/window-end.txt").read())
secs = t1 - t0

# Operations in the window, interpolated from YCSB's status lines (one a second).
STATUS = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d):(\d{3}) (\d+) sec: (\d+) operations;")
points = []
for f in sorted(glob.glob(f"{out}/bench/*/2*/runs/*/run/dc0-c0/stderr.txt"))[:1]:
    for line in open(f, errors="replace"):
        m = STATUS.match(line)
        if m:
            ts = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S").timestamp() + int(m.group(2)) / 1000
            points.append((ts, int(m.group(4))))
points.sort()


def ops_at(t):
    if points and t <= points[0][0]:
        return points[0][1]
    for (a, x), (b, y) in zip(points, points[1:]):
        if a <= t <= b:
            return x + (y - x) * (t - a) / (b - a) if b > a else y
    return points[-1][1] if points else None


ops = None
if points:
    a, b = ops_at(t0), ops_at(t1)
    if a is not None and b is not None:
        ops = b - a


def group(comm):
    if comm.startswith("kvlab-node"):
        return "event loop"
    if comm.startswith("C2_Compiler"):
        return "C2 JIT"
    if comm.startswith("C1_Compiler"):
        return "C1 JIT"
    if comm.startswith("VM_Thread") or comm.startswith("GC_"):
        return "VM thread / GC"
    if comm.startswith("JFR") or comm.startswith("JFR_"):
        return "JFR (profiling itself)"
    return "other"


def read_threads(path):
    d = {}
    if os.path.exists(path):
        for line in open(path):
            tid, comm, utime, stime = line.split()
            d[tid] = (comm, int(utime), int(stime))
    return d


print(f"# Server profile\n")
print(f"Window {secs:.1f} s; " + (f"{ops:,.0f} operations ({ops / secs:,.0f} ops/s)" if ops else "operations unknown")
      + "; " + open(f"{out}/load.txt").read().replace("\n", "; ") + "\n")
totals = collections.Counter()
per_server = {}
for s in servers:
    a, b = read_threads(f"{out}/threads-{s}-start.txt"), read_threads(f"{out}/threads-{s}-end.txt")
    g = collections.Counter()
    for tid, (comm, ut, st) in b.items():
        _, ut0, st0 = a.get(tid, (comm, 0, 0))
        if group(comm) == "event loop":
            g["event loop user"] += ut - ut0
            g["event loop kernel"] += st - st0
        else:
            g[group(comm)] += ut - ut0 + st - st0
    per_server[s] = g
    totals.update(g)
groups = ["event loop user", "event loop kernel", "C2 JIT", "C1 JIT", "VM thread / GC", "JFR (profiling itself)", "other"]
print("## Server CPU by thread group (cores" + (", µs per operation" if ops else "") + ")\n")
print("| server | " + " | ".join(groups) + " | total |")
print("|---" * (len(groups) + 2) + "|")
for s, g in list(per_server.items()) + [("all", totals)]:
    def cell(v):
        c = v / TCK / secs
        return f"{c:.3f}" + (f" ({v / TCK / ops * 1e6:.2f})" if ops else "")
    print(f"| {s} | " + " | ".join(cell(g[x]) for x in groups) + f" | {cell(sum(g.values()))} |")
print()

def event_time(s):
    """Epoch seconds of a JFR timestamp as jfr print --json writes it (ISO 8601, maybe with nanoseconds)."""
    if not isinstance(s, str):
        return None
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?", s)
    if not m:
        return None
    base = datetime.datetime.fromisoformat(m.group(1) + (m.group(3) or "Z").replace("Z", "+00:00")).timestamp()
    return base + (float("0." + m.group(2)) if m.group(2) else 0.0)


samples = []  # (thread name, frames top first as "Class.method")
alloc = []  # (weight, class, frames)
gcs = []
for s in servers:
    f = f"{out}/{s}.json"
    if not os.path.exists(f):
        continue
    try:
        events = json.load(open(f))["recording"]["events"]
    except (ValueError, KeyError):
        continue
    for e in events:
        v = e["values"]
        ts = event_time(v.get("startTime"))
        if ts is not None and not (t0 <= ts <= t1):
            continue  # the recording covers the whole run; only the window counts
        st = v.get("stackTrace") or {}
        frames = []
        for fr in st.get("frames", []) or []:
            m = fr.get("method") or {}
            cls = ((m.get("type") or {}).get("name") or "?").split("/")[-1].replace("$", ".")
            pkg = "/".join(((m.get("type") or {}).get("name") or "?").split("/")[:-1])
            frames.append((pkg, f"{cls}.{m.get('name', '?')}"))
        if e["type"] == "jdk.ExecutionSample":
            th = (v.get("sampledThread") or {}).get("javaName") or "?"
            samples.append((th, frames))
        elif e["type"] == "jdk.ObjectAllocationSample":
            cls = ((v.get("objectClass") or {}).get("name") or "?")
            alloc.append((int(v.get("weight", 0)), cls, frames))
        elif e["type"] == "jdk.GarbageCollection":
            d = v.get("duration", "PT0S")
            m = re.match(r"PT(?:([\d.]+)M)?([\d.]+)S", d) if isinstance(d, str) else None
            gcs.append((v.get("name"), float(m.group(2)) + 60 * float(m.group(1) or 0) if m else 0.0))

loop = [fr for th, fr in samples if th.startswith("kvlab-node")]
print(f"## Hot methods: {len(loop)} execution samples of the event loops (of {len(samples)} in all threads)\n")
if loop:
    selfc, incl, pk = collections.Counter(), collections.Counter(), collections.Counter()
    for fr in loop:
        if not fr:
            continue
        selfc[fr[0][1]] += 1
        for m in {x[1] for x in fr}:
            incl[m] += 1
        # the first frame outside the JDK and Netty's internals: who is paying
        pk[fr[0][0] or "?"] += 1
    n = len(loop)
    print("| self % | method | | inclusive % | method |\n|---|---|---|---|---|")
    a, b = selfc.most_common(30), incl.most_common(30)
    for i in range(max(len(a), len(b))):
        l = f"{100 * a[i][1] / n:.1f} | `{a[i][0]}`" if i < len(a) else " | "
        r = f"{100 * b[i][1] / n:.1f} | `{b[i][0]}`" if i < len(b) else " | "
        print(f"| {l} | | {r} |")
    print("\nSelf time by package of the top frame:\n")
    for p, c in pk.most_common(15):
        print(f"- {100 * c / n:.1f} % {p}")
    print()
if alloc:
    total = sum(w for w, _, _ in alloc)
    byc, bym = collections.Counter(), collections.Counter()
    for w, c, fr in alloc:
        byc[c] += w
        # the allocating method: the first frame outside java/ and jdk/ packages
        site = next((x[1] for x in fr if not x[0].startswith(("java", "jdk", "sun"))), fr[0][1] if fr else "?")
        bym[site] += w
    print(f"## Allocation (sampled weights): {total / 1e6:,.0f} MB in the window"
          + (f", {total / ops:,.0f} bytes per operation" if ops else "") + "\n")
    print("| % | class | | % | allocating method (first non-JDK frame) |\n|---|---|---|---|---|")
    a, b = byc.most_common(20), bym.most_common(20)
    for i in range(max(len(a), len(b))):
        l = f"{100 * a[i][1] / total:.1f} | `{a[i][0]}`" if i < len(a) else " | "
        r = f"{100 * b[i][1] / total:.1f} | `{b[i][0]}`" if i < len(b) else " | "
        print(f"| {l} | | {r} |")
    print()
if gcs:
    print(f"## GC: {len(gcs)} collections, {sum(d for _, d in gcs) * 1000:.0f} ms in all "
          f"({', '.join(f'{k}: {v}' for k, v in collections.Counter(n for n, _ in gcs).items())})\n")
