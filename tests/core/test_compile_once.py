"""Kernels compile once per machine: of several processes that meet an uncompiled variant at
the same time, one compiles it and the others load it from Numba's cache (colme._jit.compile_once)."""

import json
import os
import subprocess
import sys
import time

#: A kernel slow to compile (a few seconds): long enough that two processes released
#: together both find the cache empty unless a lock makes one wait for the other.
BODY = "\n".join(f"        acc = math.sin(acc) * {1 + i / 1000:.4f} + x[i % n] * {i + 1}" for i in range(250))
SOURCE = f"""
import math
from colme._jit import jit_noalias


@jit_noalias(cache=CACHE)
def heavy(x, out):
    n = x.shape[0]
    acc = 0.0
    for i in range(n):
{BODY}
    out[0] = acc
"""

CHILD = """
import json, os, sys, time
from pathlib import Path
import numpy as np
from colme._jit import call_kernel, generated_module
barrier, me, locked = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
module = generated_module("heavy", sys.stdin.read())
(barrier / me).touch()
while len(list(barrier.iterdir())) < 2:  # released together
    time.sleep(0.01)
x, out = np.arange(5.0), np.zeros(1)
if locked:
    call_kernel(module.heavy, {"x": x, "out": out})
else:
    module.heavy(x, out)
stats = module.heavy.stats
print(json.dumps({"misses": sum(stats.cache_misses.values()), "hits": sum(stats.cache_hits.values()),
                  "out": out[0]}))
"""


def race(tmp_path, locked: bool) -> list[dict]:
    folder = tmp_path / ("locked" if locked else "free")
    barrier = folder / "barrier"
    barrier.mkdir(parents=True)
    env = {**os.environ, "COLME_KERNEL_DIR": str(folder / "kernels")}
    env.pop("NUMBA_CACHE_DIR", None)
    children = [subprocess.Popen([sys.executable, "-c", CHILD, str(barrier), str(i), "1" if locked else "0"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 env=env) for i in range(2)]
    for child in children:
        child.stdin.write(SOURCE)
        child.stdin.close()
    results = []
    deadline = time.monotonic() + 300
    for child in children:
        child.wait(timeout=max(deadline - time.monotonic(), 1))
        assert child.returncode == 0, child.stderr.read()[-3000:]
        *logged, last = child.stdout.read().splitlines()
        results.append({**json.loads(last), "logged": logged})
    return results


def test_concurrent_jobs_compile_a_variant_once(tmp_path):
    # the race is real: two processes released together both compile the variant ...
    free = race(tmp_path, locked=False)
    assert [r["misses"] for r in free] == [1, 1], free
    # ... and with call_kernel's lock one compiles it while the other waits and loads it
    locked = race(tmp_path, locked=True)
    assert sorted((r["misses"], r["hits"]) for r in locked) == [(0, 1), (1, 0)], locked
    # each says which it did in its job's log (benchmarks/build_profile.py sums these lines)
    assert sorted(r["logged"][0].split(":")[1].split(" in ")[0].strip() for r in locked) == [
        "compiled", "loaded from the cache"]
    assert [r["logged"] for r in free] == [[], []]  # a kernel called directly logs nothing
    assert free[0]["out"] == free[1]["out"] == locked[0]["out"] == locked[1]["out"]
