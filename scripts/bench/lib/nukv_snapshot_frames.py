#!/usr/bin/env python3
"""Where NuKVSnapshotBench's snapshot pause goes (docs/benchmarks/nukv.md#snapshots-the-event-loop-pause).

Usage: jfr print --json --events jdk.ExecutionSample --stack-depth 64 REC.jfr > REC.json
       python3 scripts/bench/lib/nukv_snapshot_frames.py REC.json
Counts the execution samples whose stack holds NuKVSnapshotBench$Bench.snapshot (not under Bench.load) by phase
(takeSnapshot, chunk persist, compaction) and by hottest frames, and those of the commits between snapshots (where
the deferred prune runs). GC pauses are not execution samples: the benchmark's GC column has them."""
import collections, json, sys
data = json.load(open(sys.argv[1]))
events = data["recording"]["events"]
def name(f):
    m = f["method"]
    return m["type"]["name"].split("/")[-1] + "." + m["name"]
phases = collections.Counter(); selfc = collections.Counter(); incl = collections.Counter(); total = 0
commits = collections.Counter(); ctotal = 0
for e in events:
    if e["type"] != "jdk.ExecutionSample":
        continue
    st = e["values"]["stackTrace"]
    if not st: continue
    frames = [name(f) for f in st["frames"]]
    if any(fr.startswith("NuKVSnapshotBench$Bench.load") for fr in frames):
        continue
    if "NuKVSnapshotBench$Bench.commits" in frames:
        ctotal += 1
        key = ("pruneRange" if any("pruneRange" in f for f in frames) else
               "JeStore.put" if "JeStore.put" in frames else
               "InMemoryStore.put" if "InMemoryStore.put" in frames else "other")
        commits[key] += 1
        continue
    if "NuKVSnapshotBench$Bench.snapshot" not in frames:
        continue
    total += 1
    if "SnapshotSource.take" in frames: ph = "takeSnapshot"
    elif "JeStore.pruneRange" in frames or "InMemoryStore.pruneRange" in frames: ph = "compaction: pruneRange"
    elif "RaftJournal.checkpoint" in frames: ph = "compaction: restatement"
    elif "RaftJournal.persistSnapshotChunk" in frames:
        if "JeStore.put" in frames:
            sub = next((f for f in frames if f.startswith("Database.") or f.startswith("GeneratedMessageV3") or f.startswith("AbstractMessageLite")), "JeStore.put other")
            ph = "persist chunk: JeStore.put > " + ("toByteArray" if "AbstractMessageLite.toByteArray" in frames else sub)
        else:
            ph = "persist chunk: " + next((f for f in frames if f.startswith("RaftJournal") or f.startswith("RaftCodec")), "other")
    else: ph = "other: " + frames[0]
    phases[ph] += 1
    selfc[frames[0]] += 1
    for f in set(frames): incl[f] += 1
print(f"samples in snapshot pauses (not load): {total}")
for k, v in phases.most_common(25): print(f"  {v:6d} {100*v/total:5.1f}%  {k}")
print("hottest self frames:")
for k, v in selfc.most_common(25): print(f"  {v:6d} {100*v/total:5.1f}%  {k}")
print("inclusive (selected):")
for k, v in incl.most_common(60): print(f"  {v:6d} {100*v/total:5.1f}%  {k}")
print(f"samples in commits between snapshots: {ctotal}")
for k, v in commits.most_common(): print(f"  {v:6d} {100*v/max(1,ctotal):5.1f}%  {k}")
gcs = [e for e in events if e["type"] == "jdk.GarbageCollection"]
if gcs:
    def dur(x):
        d = x["values"]["duration"]
        return float(d) if isinstance(d, (int, float)) else d
    print(f"GC events: {len(gcs)}")
